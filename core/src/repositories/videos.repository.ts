import { QueryOrder } from '@mikro-orm/core';
import { Video } from '../db/entities';
import { sqlArray } from '../db/orm';
import { runPrepared } from '../db/prepared';
import { FaceRow } from './face-rows';
import { RepositoryHandle, RepositorySource, repositoryHandle } from './repository-source';

/** A video face index's load, as PHOTO_FACES_AFTER of photos.repository.ts (in the column's id order, held ids left out). */
const VIDEO_FACES_AFTER = {
  name: 'video_faces_after',
  text: `select f.id::text as id, f.video_id::text || '@' || f.time_seconds::text as ref, f.embedding, f.descriptor_version as version, f.quality,
                f.video_id::text || '#' || f.track::text as "group"
           from video_faces f where f.event_id = $1::int and f.id > $2::bigint and f.id not in (select unnest($4::bigint[]))
          order by f.id limit $3::int`,
};

export interface NewVideo {
  id: string;
  eventId: number;
  sourceKey: string;
  storageKey: string;
  originalFileName: string;
}

/** A face seen in a sampled frame, to store. */
export interface NewVideoFace {
  timeSeconds: number;
  embedding: Buffer;
  score: number;
  descriptorVersion: number;
  /** The face's quality when found (0-1). */
  quality?: number | null;
  /** The face track (per video) the sighting belongs to. */
  track: number;
}

export interface IndexedVideo {
  durationSeconds: number;
  width: number;
  height: number;
  sampleFps: number;
  /** When each new shot starts (seconds). */
  shotChanges: number[];
}

/** The videos of events and the faces in their frames: every query of `videos` and `video_faces`. */
/** An event's videos: all of them, indexed and failed. */
export interface EventVideoCounts {
  eventId: number;
  total: number;
  indexed: number;
  failed: number;
}

export interface VideosRepository {
  /** The event's videos in upload order. */
  listByEvent(eventId: number): Promise<Video[]>;
  hasSourceKey(eventId: number, sourceKey: string): Promise<boolean>;
  /** Video counts of many events in one query; an event without videos has no row. */
  countsOfEvents(eventIds: readonly number[]): Promise<EventVideoCounts[]>;
  insert(video: NewVideo): Promise<Video>;
  /** A video with its event. */
  findWithEvent(videoId: string): Promise<Video | null>;
  findByIds(ids: readonly string[]): Promise<Video[]>;
  /** The indexed videos among `ids`, in upload order. */
  findIndexed(ids: readonly string[]): Promise<Video[]>;
  /** Starts (or restarts) indexing: status `indexing`, progress 0, the error and the faces of an earlier run gone. */
  startIndexing(videoId: string): Promise<void>;
  addFaces(videoId: string, eventId: number, faces: NewVideoFace[]): Promise<void>;
  setProgress(videoId: string, progress: number): Promise<void>;
  markIndexed(videoId: string, video: IndexedVideo): Promise<void>;
  /** Marks a video not indexed yet failed with the reason. */
  markFailed(videoId: string, reason: string): Promise<void>;
  /** Faces of the event's video frames with an id above `afterId`, by id (ref: `<video id>@<seconds>`). */
  facesAfter(eventId: number, afterId: string, limit: number, skipIds?: readonly string[]): Promise<FaceRow[]>;
  /** Ids of the event's videos with faces described by a descriptor version older than `version`. */
  withFacesOlderThan(eventId: number, version: number): Promise<string[]>;
  /** Ids of the events (not being deleted) with video faces of a descriptor version older than `version`. */
  eventsWithFacesOlderThan(version: number): Promise<number[]>;
  /** Sends a finished video back to be indexed again (its faces re-described); it stays published meanwhile. */
  markForReindexing(id: string): Promise<void>;
}

export class SqlVideosRepository implements VideosRepository {
  private readonly handle: RepositoryHandle;

  constructor(source: RepositorySource) {
    this.handle = repositoryHandle(source);
  }

  private get em() {
    return this.handle.em();
  }

  listByEvent(eventId: number): Promise<Video[]> {
    return this.em.find(
      Video,
      { event: eventId },
      { orderBy: [{ createdAt: QueryOrder.ASC }, { id: QueryOrder.ASC }] },
    );
  }

  async hasSourceKey(eventId: number, sourceKey: string): Promise<boolean> {
    return (await this.em.count(Video, { event: eventId, sourceKey })) > 0;
  }

  async countsOfEvents(eventIds: readonly number[]): Promise<EventVideoCounts[]> {
    if (!eventIds.length) return [];
    const rows = (await this.em.getConnection().execute(
      `select event_id, count(*)::int as total, count(*) filter (where status = 'indexed')::int as indexed,
              count(*) filter (where status = 'failed')::int as failed
         from videos where event_id = any(?::int[]) group by event_id`,
      [sqlArray(eventIds)],
    )) as Array<{ event_id: number; total: number; indexed: number; failed: number }>;
    return rows.map((r) => ({ eventId: r.event_id, total: r.total, indexed: r.indexed, failed: r.failed }));
  }

  async insert({ eventId, ...fields }: NewVideo): Promise<Video> {
    const em = this.em;
    const video = em.create(Video, { ...fields, event: eventId });
    await em.flush();
    return video;
  }

  findWithEvent(videoId: string): Promise<Video | null> {
    return this.em.findOne(Video, { id: videoId }, { populate: ['event'] });
  }

  async findByIds(ids: readonly string[]): Promise<Video[]> {
    return ids.length ? this.em.find(Video, { id: { $in: [...ids] } }) : [];
  }

  async findIndexed(ids: readonly string[]): Promise<Video[]> {
    return ids.length
      ? this.em.find(Video, { id: { $in: [...ids] }, status: 'indexed' }, { orderBy: { createdAt: 'asc' } })
      : [];
  }

  async startIndexing(videoId: string): Promise<void> {
    const em = this.em;
    await em.nativeUpdate(Video, { id: videoId }, { status: 'indexing', indexProgress: 0, error: null });
    await em.getConnection().execute('delete from video_faces where video_id = ?', [videoId]);
  }

  async addFaces(videoId: string, eventId: number, faces: NewVideoFace[]): Promise<void> {
    if (faces.length === 0) return;
    await this.em.getConnection().execute(
      `insert into video_faces (video_id, event_id, time_seconds, embedding, score, descriptor_version, quality, track) values ${faces.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      faces.flatMap((f) => [
        videoId,
        eventId,
        f.timeSeconds,
        f.embedding,
        f.score,
        f.descriptorVersion,
        f.quality ?? null,
        f.track,
      ]),
    );
  }

  async setProgress(videoId: string, progress: number): Promise<void> {
    await this.em.nativeUpdate(Video, { id: videoId }, { indexProgress: progress });
  }

  async markIndexed(videoId: string, v: IndexedVideo): Promise<void> {
    await this.em.nativeUpdate(
      Video,
      { id: videoId },
      { status: 'indexed', indexProgress: 1, ...v, indexedAt: new Date() },
    );
  }

  async markFailed(videoId: string, reason: string): Promise<void> {
    await this.em.nativeUpdate(
      Video,
      { id: videoId, status: { $ne: 'indexed' } },
      { status: 'failed', error: reason.slice(0, 500) },
    );
  }

  facesAfter(eventId: number, afterId: string, limit: number, skipIds: readonly string[] = []): Promise<FaceRow[]> {
    return runPrepared<FaceRow>(this.handle.statements(), VIDEO_FACES_AFTER, [eventId, afterId, limit, skipIds]);
  }

  async eventsWithFacesOlderThan(version: number): Promise<number[]> {
    const rows = (await this.em
      .getConnection()
      .execute(
        'select e.id from events e where e.deleting_at is null and exists (select 1 from video_faces f where f.event_id = e.id and f.descriptor_version < ?) order by e.id',
        [version],
      )) as Array<{ id: number }>;
    return rows.map((r) => Number(r.id));
  }

  async withFacesOlderThan(eventId: number, version: number): Promise<string[]> {
    const rows = (await this.em
      .getConnection()
      .execute('select distinct video_id::text as id from video_faces where event_id = ? and descriptor_version < ?', [
        eventId,
        version,
      ])) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async markForReindexing(id: string): Promise<void> {
    await this.em
      .getConnection()
      .execute("update videos set status = 'uploaded' where id = ? and status = 'indexed'", [id]);
  }
}
