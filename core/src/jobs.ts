/** Queues, job names and payloads shared by the services that enqueue and the ml-worker that runs them. */
export const QUEUES = {
  photos: 'photo-processing',
  /** Request/reply: a face search waits for its selfie's descriptor. */
  selfies: 'selfie-embedding',
  videos: 'video-indexing',
  clips: 'video-clipping',
  /** Repeating: deletes clips past their event's retention from storage. */
  clipRetention: 'clip-retention',
} as const;

export const JOBS = {
  processPhoto: 'process-photo',
  embedSelfie: 'embed-selfie',
  indexVideo: 'index-video',
  cutClips: 'cut-clips',
  sweepExpiredClips: 'sweep-expired-clips',
} as const;

/** Samples a video's frames, finds and embeds their faces (the video face index). */
export interface IndexVideoJob extends TracedJob {
  videoId: string;
}
export const indexVideoJobId = (videoId: string) => `video-${videoId}`;

/** Builds and cuts the clips of one clipping request; a new generation after a re-run (new selfie or force_recreate). */
export interface CutClipsJob extends TracedJob {
  /** Absent in jobs queued before request ids were per event (their request_id was unique). */
  eventId?: number;
  requestId: string;
  generation: number;
}
export const cutClipsJobId = (eventId: number, requestId: string, generation: number) => `clips-${eventId}-${requestId}-${generation}`;

/** The id of the HTTP request that queued a job (`x-request-id`), carried into the worker's logs. */
export interface TracedJob {
  httpRequestId?: string;
}

export interface ProcessPhotoJob extends TracedJob {
  photoId: string;
}

/** One job per photo: enqueuing the same photo twice while a job exists is a no-op. */
export const processPhotoJobId = (photoId: string) => `photo-${photoId}`;

export const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** A selfie to embed: the image (already checked and downscaled), base64 in the job. */
export interface EmbedSelfieJob {
  imageBase64: string;
}

/** The largest face of the selfie, or null when none was found. */
export interface EmbedSelfieResult {
  descriptor: number[] | null;
  facesFound: number;
}

/** Selfie jobs are short-lived: their replies are read at once, and selfies are not kept. */
export const SELFIE_JOB_OPTIONS = {
  attempts: 1,
  removeOnComplete: { age: 120 },
  removeOnFail: { age: 120 },
} as const;

/**
 * A counter per event, bumped by the ml-worker whenever faces of the event were written, so
 * in-memory face indexes know to load what is new.
 */
export const faceIndexRevisionKey = (kind: 'photos' | 'videos', eventId: number) => `faces:rev:${kind}:${eventId}`;
