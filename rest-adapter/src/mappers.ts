import type * as op from './generated/graphql';

/** GraphQL results (camelCase) to the spec's field names (snake_case). */

// The shapes the mappers read, named after one operation that selects them; the others select the same
// fields (rest-adapter/src/operations/fragments.graphql), so their results fit these types too.
type PageInfo = op.ListEventsQuery['events']['pageInfo'];
type Image = op.BibSearchQuery['bibSearch']['items'][number];
type ImageWithMeta = op.ImageDetailsQuery['photo'];
type EventFields = op.EventDetailsQuery['event'];
type PipelineStatus = op.PipelineStatusQuery['pipelineStatus'];
type ImportReport = op.ImportPhotosMutation['importPhotos'];
type FaceSearch = op.FaceSearchQuery['faceSearch'];
type OriginalDownloads = op.OriginalDownloadsQuery['originalDownloads'];
type VideoClipping = op.VideoClippingQuery['videoClipping'];

export const pagination = (p: PageInfo) => ({
  total: p.total,
  currentPage: p.currentPage,
  totalPages: p.totalPages,
  hasNextPage: p.hasNextPage,
  hasPreviousPage: p.hasPreviousPage,
  page_size: p.pageSize,
});

export const imageItem = (p: Image) => ({
  img_url: p.largeUrl,
  height: p.height,
  width: p.width,
  image_id: p.id,
  thumbnail_url: p.thumbnailUrl,
  original_url: null,
});

export const imageItemWithMeta = (p: ImageWithMeta) => ({
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

export const eventListItem = (e: EventFields) => ({
  event_id: e.id,
  event_name: e.name,
  event_slug: e.slug,
  event_date: e.eventDate,
  status: e.status,
  cover_image: e.coverImageUrl,
});

export const eventDetails = (e: EventFields) => ({
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

export const imagePage = <T extends Image>(
  page: { items: T[]; pageInfo: PageInfo },
  item: (p: T) => unknown = imageItem,
) => ({
  images: page.items.map(item),
  pagination: pagination(page.pageInfo),
});

/** GraphQL DateTime (ISO with zone) to the spec's `YYYY-MM-DDTHH:MM:SS` (UTC). */
export const dateTime = (iso: string | null) => (iso ? iso.slice(0, 19) : null);

export const pipelineStatus = (p: PipelineStatus) => ({
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

export const importReport = (r: ImportReport) => ({
  imported: r.imported,
  duplicates: r.duplicates,
  rejected: r.rejected,
  files: r.files.map((f) => ({ key: f.key, status: f.status, image_id: f.imageId, reason: f.reason })),
});

export const faceSearch = (r: FaceSearch) => ({
  request_id: r.requestId,
  confidence_percentage: r.confidencePercentage,
  images: r.items.map((m) => imageItem(m.photo)),
  pagination: pagination(r.pageInfo),
});

export const originalDownloads = (r: OriginalDownloads) => ({
  presigned_urls: r.presignedUrls.map((u) => ({ url: u.url, filename: u.fileName, image_id: u.imageId })),
  failed_urls: r.failedUrls.map((f) => ({ image_id: f.imageId, error: f.error, path: f.path })),
  total_images: r.totalImages,
  successful_count: r.successfulCount,
  failed_count: r.failedCount,
  identifier: r.identifier,
  pagination: pagination(r.pageInfo),
});

export const videoClipping = (r: VideoClipping) => ({
  request_id: r.requestId,
  status: r.status,
  videos: r.videos.map((v) => ({
    uuid: v.uuid,
    video_url: v.videoUrl,
    source_video_key: v.sourceVideoKey,
    start_time: v.startTime,
    end_time: v.endTime,
    download_url: v.downloadUrl,
    download_status: v.downloadStatus,
  })),
  error: r.error,
  clip_errors: r.clipErrors.map((e) => ({ video_key: e.videoKey, error: e.error, status_code: e.statusCode })),
});
