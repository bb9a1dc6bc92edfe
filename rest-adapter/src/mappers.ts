/** GraphQL results (camelCase) to the spec's field names (snake_case). */

export const PAGE_INFO_FIELDS = 'total currentPage totalPages hasNextPage hasPreviousPage pageSize';
export const IMAGE_FIELDS = 'id largeUrl thumbnailUrl width height originalUrl';
export const IMAGE_WITH_META_FIELDS = `${IMAGE_FIELDS} meta { photoTimestamp photographerName originalFileName source imagePath externalUrl }`;
export const EVENT_FIELDS =
  'id name slug eventDate status enabled bibSearch selfieSearch nameSearch videoSearch videoSelfieSearch timelineSearch coverImageUrl';

export const pagination = (p: any) => ({
  total: p.total,
  currentPage: p.currentPage,
  totalPages: p.totalPages,
  hasNextPage: p.hasNextPage,
  hasPreviousPage: p.hasPreviousPage,
  page_size: p.pageSize,
});

export const imageItem = (p: any) => ({
  img_url: p.largeUrl,
  height: p.height,
  width: p.width,
  image_id: p.id,
  thumbnail_url: p.thumbnailUrl,
  original_url: null,
});

export const imageItemWithMeta = (p: any) => ({
  ...imageItem(p),
  meta_info: {
    photo_timestamp: p.meta.photoTimestamp,
    photographer_name: p.meta.photographerName,
    original_file_name: p.meta.originalFileName,
    source: p.meta.source,
    image_path: p.meta.imagePath,
    external_drive_url: p.meta.externalUrl,
  },
});

export const eventListItem = (e: any) => ({
  event_id: e.id,
  event_name: e.name,
  event_slug: e.slug,
  event_date: e.eventDate,
  status: e.status,
  cover_image: e.coverImageUrl,
});

export const eventDetails = (e: any) => ({
  event_id: e.id,
  event_name: e.name,
  event_slug: e.slug,
  event_date: e.eventDate,
  status: e.status,
  event_enabled: e.enabled,
  bib_search: e.bibSearch,
  selfie_search: e.selfieSearch,
  name_search: e.nameSearch,
  video_search: e.videoSearch,
  video_selfie_search: e.videoSelfieSearch,
  timeline_search: e.timelineSearch,
});

export const imagePage = (page: any, item: (p: any) => unknown = imageItem) => ({
  images: page.items.map(item),
  pagination: pagination(page.pageInfo),
});
