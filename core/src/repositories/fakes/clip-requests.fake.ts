import { ClipRequest, Event, Organisation } from '../../db/entities';
import {
  ClipOutcome,
  ClipRequestKey,
  ClipRequestsRepository,
  ClipWithSource,
  NewClip,
  StartedClipRequest,
} from '../clip-requests.repository';
import { InMemoryEventsRepository } from './events.fake';
import { InMemoryVideosRepository } from './videos.fake';

type StoredClip = NewClip & { downloadStatus: 'ready' | 'expired' | 'deleted'; createdAt: Date };

/** Clipping requests and clips in memory; events and videos come from their fakes when given. */
export class InMemoryClipRequestsRepository implements ClipRequestsRepository {
  readonly rows: ClipRequest[] = [];
  readonly clips: StoredClip[] = [];

  constructor(
    private readonly events?: InMemoryEventsRepository,
    private readonly videos?: InMemoryVideosRepository,
  ) {}

  private matching({ eventId, requestId }: ClipRequestKey): ClipRequest | undefined {
    return this.rows.find((r) => r.requestId === requestId && (eventId === undefined || r.event.id === eventId));
  }

  async find(key: ClipRequestKey): Promise<ClipRequest | null> {
    return this.matching(key) ?? null;
  }

  async start(r: StartedClipRequest): Promise<void> {
    let row = this.matching(r);
    if (!row) {
      row = Object.assign(new ClipRequest(), { requestId: r.requestId, createdAt: new Date() });
      row.event = (this.events?.rows.get(r.eventId) ?? { id: r.eventId }) as Event;
      row.organisation = { id: r.orgId } as Organisation;
      this.rows.push(row);
    }
    Object.assign(row, {
      status: r.status,
      embedding: r.embedding,
      matches: r.matches,
      generation: r.generation,
      error: null,
      clipErrors: [],
      finishedAt: r.finishedAt,
      updatedAt: new Date(),
    });
  }

  async finish(key: ClipRequestKey, generation: number, outcome: ClipOutcome): Promise<boolean> {
    const row = this.matching(key);
    if (!row || row.generation !== generation || row.status !== 'processing') return false;
    Object.assign(row, {
      status: outcome.status,
      error: outcome.error?.slice(0, 500) ?? null,
      finishedAt: new Date(),
      updatedAt: new Date(),
    });
    if (outcome.clipErrors) row.clipErrors = outcome.clipErrors;
    return true;
  }

  async clipsOf(eventId: number, requestId: string): Promise<ClipWithSource[]> {
    return this.clips
      .filter((c) => c.eventId === eventId && c.requestId === requestId)
      .map((c) => ({ ...c, sourceKey: this.videos?.rows.get(c.videoId)?.sourceKey ?? c.videoId }));
  }

  async deleteClips(eventId: number, requestId: string): Promise<string[]> {
    const gone = this.clips.filter((c) => c.eventId === eventId && c.requestId === requestId);
    this.clips.splice(0, this.clips.length, ...this.clips.filter((c) => !gone.includes(c)));
    return gone.map((c) => c.storageKey);
  }

  async addClip(clip: NewClip): Promise<void> {
    this.clips.push({ ...clip, downloadStatus: 'ready', createdAt: new Date() });
  }

  async dueForExpiry(now: Date, limit: number): Promise<Array<{ id: string; storageKey: string }>> {
    return this.clips.filter((c) => c.downloadStatus === 'ready' && c.expiresAt && c.expiresAt <= now).slice(0, limit);
  }

  async markExpired(clipId: string): Promise<void> {
    const clip = this.clips.find((c) => c.id === clipId);
    if (clip?.downloadStatus === 'ready') clip.downloadStatus = 'expired';
  }
}
