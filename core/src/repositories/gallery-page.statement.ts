import type { PreparedStatement } from '../db/prepared';

/**
 * One gallery page and the total in one statement ($1 event, $2 offset, $3 page size): the total
 * from the counter (event_photo_counts); the page's ids from an index-only scan of
 * photos_gallery_idx read from whichever end of the event is nearer (backwards when fewer rows
 * follow the page than precede it, so a page never skips more than half the event), only the
 * branch that applies being executed (a one-time filter); then the page's rows by primary key
 * (`= any(array(...))`: the planner cannot know the page's length, and a join would scan the
 * table). A page past the end gives one row with the total and null columns. The published rule
 * and the gallery order are PUBLISHED and galleryOrder of photos.repository.ts, written out
 * because a prepared statement is one constant text.
 */
export const GALLERY_PAGE: PreparedStatement = {
  name: 'photos_gallery_page',
  text: `with counter as materialized (select coalesce((select published from event_photo_counts where event_id = $1::int), 0)::bigint as total),
     scan as materialized (
  select total, greatest(least($3::bigint, total - $2::bigint), 0) as take, total - $2::bigint - least($3::bigint, total - $2::bigint) as after_page
    from counter
)
select scan.total::int as total, page.id, page.event_id, page.large_key, page.thumbnail_key, page.large_width, page.large_height, page.width, page.height,
       page.photographer_name, page.original_file_name, page.source, page.original_key, page.external_url,
       (extract(epoch from page.captured_at) * 1000)::float8 as captured_at_ms
  from scan
  left join photos page on page.id = any(array(
         (select id from photos
           where event_id = $1::int and published_at is not null and (select after_page >= $2::bigint from scan)
           order by captured_at asc nulls last, id asc
           limit (select take from scan) offset $2::bigint)
         union all
         (select id from photos
           where event_id = $1::int and published_at is not null and (select after_page < $2::bigint from scan)
           order by captured_at desc nulls first, id desc
           limit (select take from scan) offset (select greatest(after_page, 0) from scan))))
 order by page.captured_at asc nulls last, page.id asc`,
};
