import type { BackoffOptions, JobsOptions, WorkerOptions } from 'bullmq';
import type { Config } from '../config';

/**
 * The job registry: every queue the platform uses, its job, payload and result, how often it is
 * tried, how the workers run it and how its job id is derived. Producers enqueue through
 * `JobQueues.enqueue`, the process an entry names (`worker`) builds its Worker: nothing else names a queue.
 */

/** The id of the HTTP request that queued a job (`x-request-id`), carried into the worker's logs. */
export interface TracedJob {
  httpRequestId?: string;
}

/** Detects the faces and bib numbers of one photo and makes its previews. */
export interface ProcessPhotoJob extends TracedJob {
  photoId: string;
}

/** A selfie to embed: the image (already checked and downscaled), a binary Redis value beside the job (SelfieImages). */
export interface EmbedSelfieJob {
  imageKey?: string;
  /** The image in the job itself, as producers of before `imageKey` sent it. */
  imageBase64?: string;
  /** Whether the box family's descriptor is wanted too (the event may hold faces stored before version 4); absent: yes. */
  boxDescriptor?: boolean;
}

/** The largest face of the selfie, or null when none was found: its current (chip family) descriptor, and its box family one (faces stored before version 4). */
export interface EmbedSelfieResult {
  descriptor: number[] | null;
  /** Absent from a worker of before descriptor version 4. */
  boxDescriptor?: number[] | null;
  facesFound: number;
  /** When the worker took the job and answered (epoch ms), and the model's share: the search's timing log splits the round trip with them. */
  timing?: { startedAt: number; finishedAt: number; modelMs: number };
}

/** Samples a video's frames, finds and embeds their faces (the video face index). */
export interface IndexVideoJob extends TracedJob {
  videoId: string;
}

/** Builds and cuts the clips of one clipping request; a new generation after a re-run (new selfie or force_recreate). */
export interface CutClipsJob extends TracedJob, FairShareJob {
  /** Absent in jobs queued before request ids were per event (their request_id was unique). */
  eventId?: number;
  requestId: string;
  generation: number;
}

/** A job of a queue shared fairly between callers (`fairShare`). */
export interface FairShareJob {
  /** Who asked for it (the principal's `caller`); absent: queued in arrival order, as every job before it. */
  caller?: string;
}

/** Removes a deleted event's objects in S3 (originals, previews, videos, clips, cover), then its rows. */
export interface DeleteEventJob extends TracedJob {
  eventId: number;
  orgId: number;
}

/** What a running deletion reports (BullMQ job progress), read by the `eventDeletion` query. */
export interface DeleteEventProgress {
  objectsFound: number;
  objectsDeleted: number;
}

/** Tells a member invited to an organisation by e-mail: a set-password link, or a note to sign in. */
export interface InvitationMailJob {
  orgId: number;
  organisationName: string;
  email: string;
  role: string;
}

/** The payload and result of each queue's job, and the process that runs it. */
export interface JobTypes {
  photos: { payload: ProcessPhotoJob; result: 'processed' | 'skipped'; worker: 'ml-worker' };
  /** Request/reply: a face search waits for its selfie's descriptor. */
  selfies: { payload: EmbedSelfieJob; result: EmbedSelfieResult; worker: 'ml-worker' };
  videos: { payload: IndexVideoJob; result: 'indexed' | 'skipped'; worker: 'ml-worker' };
  /** The result is the request's final status (a ClipRequestStatus) or 'skipped'. */
  clips: { payload: CutClipsJob; result: string; worker: 'ml-worker' };
  /** Repeating: deletes clips past their event's retention from storage; the result is how many. */
  clipRetention: { payload: Record<string, never>; result: number; worker: 'ml-worker' };
  /** The result is the number of objects deleted, or 'skipped' for an event that is not marked deleted. */
  eventDeletion: { payload: DeleteEventJob; result: DeleteEventProgress | 'skipped'; worker: 'ml-worker' };
  /** The result says which mail went out. */
  invitationMail: { payload: InvitationMailJob; result: 'set-password link' | 'sign-in note'; worker: 'identity' };
}

export type QueueName = keyof JobTypes;
export type JobPayload<Q extends QueueName> = JobTypes[Q]['payload'];
export type JobResult<Q extends QueueName> = JobTypes[Q]['result'];
export type WorkerProcess = JobTypes[QueueName]['worker'];
/** The queues one process runs. */
export type QueuesOf<W extends WorkerProcess> = {
  [Q in QueueName]: JobTypes[Q]['worker'] extends W ? Q : never;
}[QueueName];

export interface JobDefinition<Q extends QueueName> {
  /** The BullMQ queue name: part of the Redis keys, so renaming one orphans its queued jobs. */
  queue: string;
  /** The job name, shown in logs and queue tools. */
  job: string;
  /**
   * Idempotency: the job id derived from the thing processed, so a thing already waiting or
   * running is not queued twice. Without it, every enqueue is a new job (BullMQ's counter).
   */
  jobId?: (payload: JobPayload<Q>) => string;
  /** At most one job per id within the time (BullMQ deduplication): asking again sooner does nothing. */
  deduplicate?: { id: (payload: JobPayload<Q>) => string; seconds: number };
  /** The process that runs the queue's jobs. */
  worker: JobTypes[Q]['worker'];
  attempts: number;
  backoff?: BackoffOptions;
  removeOnComplete: JobsOptions['removeOnComplete'];
  removeOnFail: JobsOptions['removeOnFail'];
  concurrency: number;
  /** How long a running job's lock lasts without renewal; a crashed worker's job is retried after it. */
  lockDuration: number;
  /**
   * Shared fairly between callers: a caller's next job waits behind every other caller's first (`admitFairShare`);
   * the payload names the caller (`FairShareJob`).
   */
  fairShare?: boolean;
  /** Repeating jobs: one schedule in Redis (survives restarts, runs once per tick however many workers). */
  repeat?: { schedulerId: string; everyMs: (cfg: Pick<Config, 'CLIP_RETENTION_SWEEP_SECONDS'>) => number };
}

const RETRY_WITH_BACKOFF = { backoff: { type: 'exponential', delay: 2000 } } as const;
const KEEP_FINISHED = {
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
/** BullMQ's default lock duration. */
const DEFAULT_LOCK_MS = 30_000;
/** Video jobs run for minutes; the lock is renewed while they run, a longer one rides out slow renewals. */
const LONG_LOCK_MS = 120_000;

export const JOBS: { readonly [Q in QueueName]: JobDefinition<Q> } = {
  photos: {
    worker: 'ml-worker',
    queue: 'photo-processing',
    job: 'process-photo',
    jobId: ({ photoId }) => `photo-${photoId}`,
    attempts: 5,
    ...RETRY_WITH_BACKOFF,
    ...KEEP_FINISHED,
    concurrency: 2,
    lockDuration: DEFAULT_LOCK_MS,
  },
  selfies: {
    worker: 'ml-worker',
    queue: 'selfie-embedding',
    job: 'embed-selfie',
    // One try, short-lived: the face search reads the reply at once (or gives up), and selfies are not kept.
    attempts: 1,
    removeOnComplete: { age: 120 },
    removeOnFail: { age: 120 },
    concurrency: 4,
    lockDuration: DEFAULT_LOCK_MS,
  },
  videos: {
    worker: 'ml-worker',
    queue: 'video-indexing',
    job: 'index-video',
    jobId: ({ videoId }) => `video-${videoId}`,
    attempts: 3,
    ...RETRY_WITH_BACKOFF,
    ...KEEP_FINISHED,
    concurrency: 1,
    lockDuration: LONG_LOCK_MS,
  },
  clips: {
    worker: 'ml-worker',
    queue: 'video-clipping',
    job: 'cut-clips',
    jobId: ({ eventId, requestId, generation }) => `clips-${eventId}-${requestId}-${generation}`,
    // One visitor's many requests must not hold back every other participant's clips (minutes of ffmpeg each).
    fairShare: true,
    attempts: 3,
    ...RETRY_WITH_BACKOFF,
    ...KEEP_FINISHED,
    concurrency: 1,
    lockDuration: LONG_LOCK_MS,
  },
  clipRetention: {
    worker: 'ml-worker',
    queue: 'clip-retention',
    job: 'sweep-expired-clips',
    attempts: 1,
    removeOnComplete: 100,
    removeOnFail: 100,
    concurrency: 1,
    lockDuration: DEFAULT_LOCK_MS,
    repeat: { schedulerId: 'clip-retention-sweep', everyMs: (cfg) => cfg.CLIP_RETENTION_SWEEP_SECONDS * 1000 },
  },
  eventDeletion: {
    worker: 'ml-worker',
    queue: 'event-deletion',
    job: 'delete-event',
    // One deletion per event: asking again while it runs is a no-op; a failed one is queued afresh.
    jobId: ({ eventId }) => `event-${eventId}`,
    attempts: 5,
    ...RETRY_WITH_BACKOFF,
    ...KEEP_FINISHED,
    concurrency: 1,
    lockDuration: LONG_LOCK_MS,
  },
  invitationMail: {
    worker: 'identity',
    queue: 'invitation-mail',
    job: 'send-invitation',
    // Inviting the same address again within ten minutes mails nobody twice.
    deduplicate: { id: ({ orgId, email }) => `invitation-${orgId}-${email}`, seconds: 600 },
    attempts: 6,
    ...RETRY_WITH_BACKOFF,
    ...KEEP_FINISHED,
    concurrency: 1,
    lockDuration: DEFAULT_LOCK_MS,
  },
};

export const QUEUE_NAMES = Object.keys(JOBS) as QueueName[];

/** The queues a process runs. */
export const queuesOf = <W extends WorkerProcess>(worker: W) =>
  QUEUE_NAMES.filter((name): name is QueuesOf<W> => JOBS[name].worker === worker);

/** The id a job for this payload gets (undefined: a fresh id per job). */
export function jobIdOf<Q extends QueueName>(queue: Q, payload: JobPayload<Q>): string | undefined {
  return (JOBS[queue] as JobDefinition<Q>).jobId?.(payload);
}

/** The options a job of this queue is added with. */
export function jobOptions<Q extends QueueName>(queue: Q, payload?: JobPayload<Q>): JobsOptions {
  const { attempts, backoff, removeOnComplete, removeOnFail, deduplicate } = JOBS[queue] as JobDefinition<Q>;
  const jobId = payload && jobIdOf(queue, payload);
  const deduplication = payload && deduplicate && { id: deduplicate.id(payload), ttl: deduplicate.seconds * 1000 };
  return {
    attempts,
    ...(backoff && { backoff }),
    removeOnComplete,
    removeOnFail,
    ...(jobId && { jobId }),
    ...(deduplication && { deduplication }),
  };
}

/** How the ml-worker runs this queue's jobs. */
export function workerOptions(queue: QueueName): Pick<WorkerOptions, 'concurrency' | 'lockDuration'> {
  const { concurrency, lockDuration } = JOBS[queue];
  return { concurrency, lockDuration };
}
