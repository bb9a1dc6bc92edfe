import { Clip, ClipError, ClipRequest, ClipRequestStatus, Video, VideoMatch } from '../db/entities';
import { RepositoryHandle, RepositorySource, repositoryHandle } from './repository-source';

/** A request is keyed by event and request_id; clip jobs queued before that carry the request_id alone (then unique). */
export interface ClipRequestKey {
  eventId: number | undefined;
  requestId: string;
}

/** The state a (re)started request is written with. */
export interface StartedClipRequest {
  eventId: number;
  requestId: string;
  orgId: number;
  status: ClipRequestStatus;
  embedding: Buffer | null;
  matches: VideoMatch[];
  generation: number;
  finishedAt: Date | null;
}

export interface ClipOutcome {
  status: ClipRequestStatus;
  error: string | null;
  clipErrors?: ClipError[];
}

export interface NewClip {
  id: string;
  eventId: number;
  requestId: string;
  videoId: string;
  startSeconds: number;
  endSeconds: number;
  storageKey: string;
  expiresAt: Date | null;
}

/** A clip with the source key of its video. */
export type ClipWithSource = Pick<
  Clip,
  'id' | 'startSeconds' | 'endSeconds' | 'storageKey' | 'downloadStatus' | 'expiresAt'
> & { sourceKey: string };

/** Selfie clipping requests and their clips: every query of `clip_requests` and `clips`. */
export interface ClipRequestsRepository {
  /** The request, with its event. */
  find(key: ClipRequestKey): Promise<ClipRequest | null>;
  /** Writes a new request or restarts an existing one (its errors cleared). */
  start(request: StartedClipRequest): Promise<void>;
  /**
   * Ends the run `generation` of a request still `processing` with the outcome; false when it was
   * not (a newer run took over, or it ended already).
   */
  finish(key: ClipRequestKey, generation: number, outcome: ClipOutcome): Promise<boolean>;
  /** The clips of a request, oldest first, with their video's source key. */
  clipsOf(eventId: number, requestId: string): Promise<ClipWithSource[]>;
  /** Removes the clip rows of a request; returns the storage keys they had. */
  deleteClips(eventId: number, requestId: string): Promise<string[]>;
  addClip(clip: NewClip): Promise<void>;
  /** Clips still `ready` whose `expires_at` is at or before `now`, at most `limit`. */
  dueForExpiry(now: Date, limit: number): Promise<Array<{ id: string; storageKey: string }>>;
  markExpired(clipId: string): Promise<void>;
}

const where = ({ eventId, requestId }: ClipRequestKey) =>
  eventId === undefined ? { requestId } : { event: eventId, requestId };

export class SqlClipRequestsRepository implements ClipRequestsRepository {
  private readonly handle: RepositoryHandle;

  constructor(source: RepositorySource) {
    this.handle = repositoryHandle(source);
  }

  private get em() {
    return this.handle.em();
  }

  find(key: ClipRequestKey): Promise<ClipRequest | null> {
    return this.em.findOne(ClipRequest, where(key), { populate: ['event'] });
  }

  async start(r: StartedClipRequest): Promise<void> {
    await this.em.getConnection().execute(
      `insert into clip_requests (request_id, event_id, organisation_id, status, embedding, matches, generation, error, clip_errors, finished_at)
       values (?, ?, ?, ?, ?, ?::jsonb, ?, null, '[]'::jsonb, ?)
       on conflict (event_id, request_id) do update set status = excluded.status, embedding = excluded.embedding, matches = excluded.matches,
         generation = excluded.generation, error = null, clip_errors = '[]'::jsonb, finished_at = excluded.finished_at, updated_at = now()`,
      [r.requestId, r.eventId, r.orgId, r.status, r.embedding, JSON.stringify(r.matches), r.generation, r.finishedAt],
    );
  }

  async finish(key: ClipRequestKey, generation: number, outcome: ClipOutcome): Promise<boolean> {
    const now = new Date();
    const updated = await this.em.nativeUpdate(
      ClipRequest,
      { ...where(key), generation, status: 'processing' },
      {
        status: outcome.status,
        error: outcome.error?.slice(0, 500) ?? null,
        ...(outcome.clipErrors ? { clipErrors: outcome.clipErrors } : {}),
        finishedAt: now,
        updatedAt: now,
      },
    );
    return updated > 0;
  }

  async clipsOf(eventId: number, requestId: string): Promise<ClipWithSource[]> {
    const clips = await this.em.find(
      Clip,
      { clipRequest: { event: eventId, requestId } },
      { populate: ['video'], orderBy: { createdAt: 'asc', startSeconds: 'asc' } },
    );
    return clips.map((c) => ({
      id: c.id,
      startSeconds: c.startSeconds,
      endSeconds: c.endSeconds,
      storageKey: c.storageKey,
      downloadStatus: c.downloadStatus,
      expiresAt: c.expiresAt,
      sourceKey: (c.video as Video).sourceKey,
    }));
  }

  async deleteClips(eventId: number, requestId: string): Promise<string[]> {
    const em = this.em;
    const old = await em.find(Clip, { clipRequest: { event: eventId, requestId } }, { fields: ['id', 'storageKey'] });
    if (old.length) await em.nativeDelete(Clip, { id: { $in: old.map((c) => c.id) } });
    return old.map((c) => c.storageKey);
  }

  async addClip(c: NewClip): Promise<void> {
    const em = this.em;
    em.create(Clip, {
      id: c.id,
      clipRequest: [c.eventId, c.requestId],
      video: c.videoId,
      startSeconds: c.startSeconds,
      endSeconds: c.endSeconds,
      storageKey: c.storageKey,
      expiresAt: c.expiresAt,
    });
    await em.flush();
  }

  async dueForExpiry(now: Date, limit: number): Promise<Array<{ id: string; storageKey: string }>> {
    const due = await this.em.find(
      Clip,
      { downloadStatus: 'ready', expiresAt: { $lte: now } },
      { fields: ['id', 'storageKey'], limit },
    );
    return due.map((c) => ({ id: c.id, storageKey: c.storageKey }));
  }

  async markExpired(clipId: string): Promise<void> {
    await this.em.nativeUpdate(Clip, { id: clipId, downloadStatus: 'ready' }, { downloadStatus: 'expired' });
  }
}
