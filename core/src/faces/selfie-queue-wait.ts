import type { Redis } from 'ioredis';

/** What the selfie queue holds now, and how fast it is served. */
export interface SelfieQueueState {
  /** Selfies no worker has taken yet. */
  waiting: number;
  /** Selfies taken by a worker (being embedded, or held by a thread for after its current one). */
  active: number;
  /** Workers serving the queue (each selfie thread is one). */
  workers: number;
  /** Recent model time per selfie on one worker (ms). */
  msPerSelfie: number;
}

export type SelfieQueueVerdict =
  { admitted: true; waitMs: number } | { admitted: false; waitMs: number; retryAfterSeconds: number };

/** The share of the embedding timeout a new selfie's estimated wait may use: the rest is for the hops and the estimate's error. */
export const ADMITTED_SHARE_OF_TIMEOUT = 0.8;

/** How long a new selfie would wait for its answer: the selfies ahead of it shared by the workers, then its own. */
export function estimatedSelfieWaitMs(state: SelfieQueueState): number {
  const ahead = state.waiting + state.active;
  return (ahead / Math.max(1, state.workers) + 1) * state.msPerSelfie;
}

/** The longest Retry-After given: past a minute, a client had better look again than wait longer. */
const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Whether a new selfie can be answered within the timeout. When not, the client is told to retry once
 * the queue ahead has shrunk enough for it to fit (at least 1 s, at most a minute).
 */
export function selfieQueueVerdict(state: SelfieQueueState, timeoutMs: number): SelfieQueueVerdict {
  const waitMs = estimatedSelfieWaitMs(state);
  const budgetMs = timeoutMs * ADMITTED_SHARE_OF_TIMEOUT;
  if (waitMs <= budgetMs) return { admitted: true, waitMs };
  const retryAfterSeconds = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil((waitMs - budgetMs) / 1000)));
  return { admitted: false, waitMs, retryAfterSeconds };
}

/** Assumed before any selfie was answered: a phone selfie's embedding measured ~1 s on one core of the bench machine. */
export const DEFAULT_MS_PER_SELFIE = 1000;
/** Weight of the newest sample in the moving average (about the last 5 selfies count). */
const SMOOTHING = 0.3;
/** Shared by every face-search and clipping process of the platform, so a quiet one knows the recent time too. */
const SHARED_KEY = 'selfie-embedding:ms-per-selfie';
const SHARED_TTL_MS = 6 * 3600 * 1000;

/**
 * The recent model time per selfie: a moving average of the workers' replies, kept in this process
 * and shared through Redis (the last writer's average) for processes that embed seldom.
 */
export class RecentSelfieTime {
  private local: number | null = null;

  constructor(private readonly redis: Pick<Redis, 'get' | 'set'>) {}

  /** Counts a reply's model time; the shared value is written without waiting for it. */
  observe(modelMs: number): void {
    if (!Number.isFinite(modelMs) || modelMs <= 0) return;
    this.local = this.local === null ? modelMs : this.local * (1 - SMOOTHING) + modelMs * SMOOTHING;
    void this.redis.set(SHARED_KEY, String(Math.round(this.local)), 'PX', SHARED_TTL_MS).catch(() => undefined);
  }

  /** This process's average, else the shared one, else the default. */
  async msPerSelfie(): Promise<number> {
    if (this.local !== null) return this.local;
    const shared = Number(await this.redis.get(SHARED_KEY).catch(() => null));
    return Number.isFinite(shared) && shared > 0 ? shared : DEFAULT_MS_PER_SELFIE;
  }
}
