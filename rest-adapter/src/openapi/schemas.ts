/**
 * JSON schemas (OpenAPI 3.1 components) of the spec's payloads, as the mappers produce them. The
 * end-to-end tests validate every REST response against the document built from these.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const object = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const int: Schema = { type: 'integer' };
const str: Schema = { type: 'string' };
const bool: Schema = { type: 'boolean' };
const uuid: Schema = { type: 'string', format: 'uuid' };
const url: Schema = { type: 'string', format: 'uri' };
const dateTime: Schema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
  description: 'YYYY-MM-DDTHH:MM:SS, no zone',
};
const paged = (name: string, items: Schema): Schema =>
  object({ [name]: { type: 'array', items }, pagination: ref('Pagination') });

export const SCHEMAS: Record<string, Schema> = {
  Envelope: object({ responseType: { type: 'string', enum: ['success'] }, message: str, data: {} }),
  ErrorEnvelope: object(
    { responseType: { type: 'string', enum: ['error'] }, message: str, data: { type: 'null' } },
    'Every error: the HTTP status carries its type.',
  ),
  Pagination: object(
    { total: int, currentPage: int, totalPages: int, hasNextPage: bool, hasPreviousPage: bool, page_size: int },
    'An empty result has total 0 and currentPage 0.',
  ),
  ImageItem: object({
    img_url: url,
    height: int,
    width: int,
    image_id: uuid,
    thumbnail_url: url,
    original_url: { type: 'null' },
  }),
  ImageItemWithMeta: object({
    img_url: url,
    height: int,
    width: int,
    image_id: uuid,
    thumbnail_url: url,
    original_url: { type: 'null' },
    meta_info: object({
      photo_timestamp: nullable(int),
      photographer_name: nullable(str),
      original_file_name: str,
      source: str,
      image_path: str,
      external_drive_url: nullable(str),
    }),
  }),
  Images: paged('images', ref('ImageItem')),
  ImagesWithMeta: paged('images', ref('ImageItemWithMeta')),
  EventListItem: object({
    event_id: int,
    event_name: str,
    event_slug: str,
    event_date: nullable(dateTime),
    status: str,
    cover_image: nullable(url),
  }),
  EventList: paged('events', ref('EventListItem')),
  EventDetails: object({
    event_id: int,
    event_name: str,
    event_slug: str,
    event_date: nullable(dateTime),
    status: str,
    event_enabled: bool,
    bib_search: bool,
    selfie_search: bool,
    name_search: bool,
    video_search: bool,
    video_selfie_search: bool,
    timeline_search: bool,
    cover_image: nullable(url),
    time_zone: { type: 'string', description: 'IANA zone the event is held in (capture times are shown in it)' },
  }),
  Ping: object({ status: { type: 'string', enum: ['ok'] }, org_id: int, event_id: int }),
  Account: object({
    account_label: nullable(str),
    scopes: { type: 'array', items: str },
    organisations: {
      type: 'array',
      items: object({
        org_id: int,
        name: nullable(str),
        slug: nullable(str),
        role: { type: 'string', enum: ['admin', 'user'] },
      }),
    },
  }),
  FaceSearch: object({
    request_id: uuid,
    confidence_percentage: nullable({ type: 'number' }),
    images: { type: 'array', items: ref('ImageItem') },
    pagination: ref('Pagination'),
  }),
  TimelineDays: object({
    days: {
      type: 'array',
      items: object({
        date: { type: 'string', format: 'date' },
        total: int,
        hours: { type: 'array', items: object({ hour: { type: 'integer', minimum: 0, maximum: 23 }, count: int }) },
      }),
    },
  }),
  Downloads: object({
    presigned_urls: { type: 'array', items: object({ url, filename: str, image_id: str }) },
    failed_urls: { type: 'array', items: object({ image_id: str, error: str, path: str }) },
    total_images: int,
    successful_count: int,
    failed_count: int,
    identifier: nullable(str),
    pagination: ref('Pagination'),
  }),
  ClippingStatus: {
    type: 'string',
    enum: ['processing', 'completed', 'no_matches', 'no_segments', 'clip_failed', 'failed'],
  },
  ClippingStart: object({ status: ref('ClippingStatus'), request_id: uuid }),
  ClippingResult: object({
    request_id: uuid,
    status: ref('ClippingStatus'),
    videos: {
      type: 'array',
      items: object({
        uuid,
        video_url: {
          ...nullable(url),
          description: 'Public MP4; null once the clip expired (download_status expired).',
        },
        source_video_key: nullable(str),
        start_time: nullable({ type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}$' }),
        end_time: nullable({ type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}$' }),
        download_url: { ...nullable(url), description: 'Use only when download_status is ready; null otherwise.' },
        download_status: {
          type: 'string',
          enum: ['ready', 'expired', 'deleted'],
          description:
            'expired: past the event clip retention, the file is deleted; POST again with force_recreate=true to recreate.',
        },
      }),
    },
    error: nullable(str),
    clip_errors: {
      type: 'array',
      items: object({ video_key: nullable(str), error: nullable(str), status_code: nullable(int) }),
    },
  }),
  PipelineStatus: object({
    is_live: bool,
    went_live_at: nullable(dateTime),
    total: int,
    imported: int,
    queued: int,
    processing: int,
    processed: int,
    failed: int,
    live: int,
    progress: { type: 'number', minimum: 0, maximum: 1 },
    failures: { type: 'array', items: object({ reason: str, count: int }) },
    last_imported_at: nullable(dateTime),
    last_processed_at: nullable(dateTime),
  }),
  ImportReport: object({
    imported: int,
    duplicates: int,
    rejected: int,
    files: {
      type: 'array',
      items: object({
        key: str,
        status: { type: 'string', enum: ['imported', 'duplicate', 'rejected'] },
        image_id: nullable(uuid),
        reason: nullable(str),
      }),
    },
  }),
  ProcessReport: object({ queued: int }),
  GoLiveReport: object({ published: int, is_live: bool, went_live_at: nullable(dateTime) }),
};
