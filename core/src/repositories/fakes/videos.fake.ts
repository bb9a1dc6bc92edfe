import { Event, Video } from '../../db/entities';
import { FaceRow } from '../face-rows';
import { EventVideoCounts, IndexedVideo, NewVideo, NewVideoFace, VideosRepository } from '../videos.repository';
import { InMemoryEventsRepository } from './events.fake';

/** Videos and their frame faces in memory; the event comes from `events` when given. */
export class InMemoryVideosRepository implements VideosRepository {
  readonly rows = new Map<string, Video>();
  readonly faces: Array<NewVideoFace & { id: number; videoId: string; eventId: number }> = [];
  readonly progress: number[] = [];
  private nextFaceId = 1;
  private clock = 0;

  constructor(private readonly events?: InMemoryEventsRepository) {}

  add(fields: Partial<Omit<Video, 'event'>> & { eventId: number }): Video {
    const { eventId, ...rest } = fields;
    // Upload order is creation order, even within one millisecond.
    const video = Object.assign(
      new Video(),
      {
        sourceKey: 'cam',
        storageKey: 'videos/x.mp4',
        originalFileName: 'cam.mp4',
        createdAt: new Date(Date.now() + this.clock++),
      },
      rest,
    );
    video.event = (this.events?.rows.get(eventId) ?? { id: eventId }) as Event;
    this.rows.set(video.id, video);
    return video;
  }

  async listByEvent(eventId: number): Promise<Video[]> {
    return [...this.rows.values()]
      .filter((v) => v.event.id === eventId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async countsOfEvents(eventIds: readonly number[]): Promise<EventVideoCounts[]> {
    const counts = new Map<number, EventVideoCounts>();
    for (const v of this.rows.values()) {
      if (!eventIds.includes(v.event.id)) continue;
      const c = counts.get(v.event.id) ?? { eventId: v.event.id, total: 0, indexed: 0, failed: 0 };
      c.total++;
      if (v.status === 'indexed') c.indexed++;
      if (v.status === 'failed') c.failed++;
      counts.set(v.event.id, c);
    }
    return [...counts.values()];
  }

  async hasSourceKey(eventId: number, sourceKey: string): Promise<boolean> {
    return [...this.rows.values()].some((v) => v.event.id === eventId && v.sourceKey === sourceKey);
  }

  async insert({ eventId, ...fields }: NewVideo): Promise<Video> {
    return this.add({ ...fields, eventId });
  }

  async findWithEvent(videoId: string): Promise<Video | null> {
    return this.rows.get(videoId) ?? null;
  }

  async findByIds(ids: readonly string[]): Promise<Video[]> {
    return ids.flatMap((id) => this.rows.get(id) ?? []);
  }

  async findIndexed(ids: readonly string[]): Promise<Video[]> {
    return (await this.findByIds(ids))
      .filter((v) => v.status === 'indexed')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async startIndexing(videoId: string): Promise<void> {
    Object.assign(this.rows.get(videoId)!, { status: 'indexing', indexProgress: 0, error: null });
    this.faces.splice(0, this.faces.length, ...this.faces.filter((f) => f.videoId !== videoId));
  }

  async addFaces(videoId: string, eventId: number, faces: NewVideoFace[]): Promise<void> {
    for (const face of faces) this.faces.push({ ...face, id: this.nextFaceId++, videoId, eventId });
  }

  async setProgress(videoId: string, progress: number): Promise<void> {
    this.rows.get(videoId)!.indexProgress = progress;
    this.progress.push(progress);
  }

  async markIndexed(videoId: string, indexed: IndexedVideo): Promise<void> {
    Object.assign(this.rows.get(videoId)!, indexed, { status: 'indexed', indexProgress: 1, indexedAt: new Date() });
  }

  async markFailed(videoId: string, reason: string): Promise<void> {
    const video = this.rows.get(videoId);
    if (video && video.status !== 'indexed') Object.assign(video, { status: 'failed', error: reason.slice(0, 500) });
  }

  async facesAfter(
    eventId: number,
    afterId: string,
    limit: number,
    skipIds: readonly string[] = [],
  ): Promise<FaceRow[]> {
    const skip = new Set(skipIds);
    return this.faces
      .filter((f) => f.eventId === eventId && f.id > Number(afterId) && !skip.has(String(f.id)))
      .sort((a, b) => a.id - b.id)
      .slice(0, limit)
      .map((f) => ({
        id: String(f.id),
        ref: `${f.videoId}@${f.timeSeconds}`,
        embedding: f.embedding,
        version: f.descriptorVersion,
        quality: f.quality ?? null,
        group: `${f.videoId}#${f.track}`,
      }));
  }

  async eventsWithFacesOlderThan(version: number): Promise<number[]> {
    return [...new Set(this.faces.filter((f) => f.descriptorVersion < version).map((f) => f.eventId))].sort(
      (a, b) => a - b,
    );
  }

  async withFacesOlderThan(eventId: number, version: number): Promise<string[]> {
    return [
      ...new Set(
        this.faces.filter((f) => f.eventId === eventId && f.descriptorVersion < version).map((f) => f.videoId),
      ),
    ];
  }

  async markForReindexing(id: string): Promise<void> {
    const row = this.rows.get(id);
    if (row?.status === 'indexed') row.status = 'uploaded';
  }
}
