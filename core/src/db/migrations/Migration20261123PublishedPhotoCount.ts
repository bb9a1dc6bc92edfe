import { Migration } from '@mikro-orm/migrations';

/**
 * The number of published photos of each event, kept by the database itself so the gallery never
 * counts a whole event per request. Statement-level triggers on `photos` see every way a photo
 * becomes visible or not (go-live publishing an event, the ml-worker publishing into a live event,
 * deletes, event deletion), in the writer's transaction, one counter update per event and statement.
 * "Published" here is the rule of core/src/repositories/photos.repository.ts (`PUBLISHED`: `published_at is not null`).
 * An event without a row has no published photo.
 */
export class Migration20261123PublishedPhotoCount extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "event_photo_counts" ("event_id" int not null, "published" int not null default 0, constraint "event_photo_counts_pkey" primary key ("event_id"), constraint "event_photo_counts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade)',
    );
    this.addSql(`create function "photos_count_published"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into event_photo_counts as c (event_id, published)
      select event_id, count(*) from new_rows where published_at is not null group by event_id
      on conflict (event_id) do update set published = c.published + excluded.published;
  elsif tg_op = 'DELETE' then
    -- an update, never an insert: when the event itself is being deleted its counter is gone too
    update event_photo_counts as c set published = c.published - gone.n
      from (select event_id, count(*) as n from old_rows where published_at is not null group by event_id) gone
     where c.event_id = gone.event_id;
  else
    insert into event_photo_counts as c (event_id, published)
      select event_id, sum(n) from (
        select event_id, -1 as n from old_rows where published_at is not null
        union all
        select event_id, 1 from new_rows where published_at is not null) changes
      group by event_id having sum(n) <> 0
      on conflict (event_id) do update set published = c.published + excluded.published;
  end if;
  return null;
end $$`);
    // Triggers with transition tables are one per event kind.
    this.addSql(
      'create trigger "photos_count_published_insert" after insert on "photos" referencing new table as new_rows for each statement execute function "photos_count_published"()',
    );
    this.addSql(
      'create trigger "photos_count_published_update" after update on "photos" referencing old table as old_rows new table as new_rows for each statement execute function "photos_count_published"()',
    );
    this.addSql(
      'create trigger "photos_count_published_delete" after delete on "photos" referencing old table as old_rows for each statement execute function "photos_count_published"()',
    );
    this.addSql('lock table "photos" in share mode'); // no publish between the back-fill and the commit
    this.addSql(
      'insert into "event_photo_counts" ("event_id", "published") select "event_id", count(*) from "photos" where "published_at" is not null group by "event_id"',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger "photos_count_published_insert" on "photos"');
    this.addSql('drop trigger "photos_count_published_update" on "photos"');
    this.addSql('drop trigger "photos_count_published_delete" on "photos"');
    this.addSql('drop function "photos_count_published"()');
    this.addSql('drop table "event_photo_counts"');
  }
}
