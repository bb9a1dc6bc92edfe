/** GraphQL results (camelCase) to the spec's field names (snake_case). */

export const PAGE_INFO_FIELDS = 'total currentPage totalPages hasNextPage hasPreviousPage pageSize';
export const IMAGE_FIELDS = 'id largeUrl thumbnailUrl width height originalUrl';
export const IMAGE_WITH_META_FIELDS = `${IMAGE_FIELDS} meta { photoTimestamp photographerName originalFileName source imagePath externalUrl }`;
export const EVENT_FIELDS =
  'id name slug eventDate status enabled bibSearch selfieSearch nameSearch videoSearch videoSelfieSearch timelineSearch coverImageUrl timeZone';

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
  // Beyond the spec's list (clients treat unknown keys as optional): what a participant page shows.
  cover_image: e.coverImageUrl,
  time_zone: e.timeZone,
});

export const imagePage = (page: any, item: (p: any) => unknown = imageItem) => ({
  images: page.items.map(item),
  pagination: pagination(page.pageInfo),
});

/** GraphQL DateTime (ISO with zone) to the spec's `YYYY-MM-DDTHH:MM:SS` (UTC). */
export const dateTime = (iso: string | null) => (iso ? iso.slice(0, 19) : null);

export const PIPELINE_STATUS_FIELDS =
  'isLive wentLiveAt total imported queued processing processed failed live progress failures { reason count } lastImportedAt lastProcessedAt';

export const pipelineStatus = (p: any) => ({
  is_live: p.isLive,
  went_live_at: dateTime(p.wentLiveAt),
  total: p.total,
  imported: p.imported,
  queued: p.queued,
  processing: p.processing,
  processed: p.processed,
  failed: p.failed,
  live: p.live,
  progress: p.progress,
  failures: p.failures,
  last_imported_at: dateTime(p.lastImportedAt),
  last_processed_at: dateTime(p.lastProcessedAt),
});

export const importReport = (r: any) => ({
  imported: r.imported,
  duplicates: r.duplicates,
  rejected: r.rejected,
  files: r.files.map((f: any) => ({ key: f.key, status: f.status, image_id: f.imageId, reason: f.reason })),
});

export const FACE_SEARCH_FIELDS = `requestId confidencePercentage items { similarity photo { ${IMAGE_FIELDS} } } pageInfo { ${PAGE_INFO_FIELDS} }`;

export const faceSearch = (r: any) => ({
  request_id: r.requestId,
  confidence_percentage: r.confidencePercentage,
  images: r.items.map((m: any) => imageItem(m.photo)),
  pagination: pagination(r.pageInfo),
});

export const DOWNLOAD_FIELDS = `presignedUrls { imageId url fileName } failedUrls { imageId error path } totalImages successfulCount failedCount identifier pageInfo { ${PAGE_INFO_FIELDS} }`;

export const originalDownloads = (r: any) => ({
  presigned_urls: r.presignedUrls.map((u: any) => ({ url: u.url, filename: u.fileName, image_id: u.imageId })),
  failed_urls: r.failedUrls.map((f: any) => ({ image_id: f.imageId, error: f.error, path: f.path })),
  total_images: r.totalImages,
  successful_count: r.successfulCount,
  failed_count: r.failedCount,
  identifier: r.identifier,
  pagination: pagination(r.pageInfo),
});

export const CLIPPING_FIELDS =
  'requestId status error videos { uuid videoUrl sourceVideoKey startTime endTime downloadUrl downloadStatus } clipErrors { videoKey error statusCode }';

export const videoClipping = (r: any) => ({
  request_id: r.requestId,
  status: r.status,
  videos: r.videos.map((v: any) => ({
    uuid: v.uuid,
    video_url: v.videoUrl,
    source_video_key: v.sourceVideoKey,
    start_time: v.startTime,
    end_time: v.endTime,
    download_url: v.downloadUrl,
    download_status: v.downloadStatus,
  })),
  error: r.error,
  clip_errors: r.clipErrors.map((e: any) => ({ video_key: e.videoKey, error: e.error, status_code: e.statusCode })),
});
