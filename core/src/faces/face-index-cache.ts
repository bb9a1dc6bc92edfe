import { Logger } from '../logger';
import {
  BOX_DESCRIPTOR_VERSION,
  bufferToDescriptor,
  CHIP_DISTANCE_SHIFT,
  DescriptorFamily,
  descriptorFamily,
  FACE_DESCRIPTOR_VERSION,
  maxDistanceFor,
  SelfieDescriptors,
  widestDistanceFor,
} from './embedding';
import { FaceIndexKind, FaceIndexRevisions } from './face-index-revisions';
import { FaceMatrix } from './face-matrix';
import { nearerToStranger } from './stranger-check';
import { FaceRowSource } from '../repositories/face-rows';

/** How far back an incremental load re-reads, so faces committed out of id order are not missed. */
const ID_OVERLAP = 2000;
/** Look for new faces at least this often, even when no revision bump arrived. */
const MAX_STALENESS_MS = 60_000;
/** Rebuild from scratch this often, dropping faces of reprocessed or deleted photos. */
const FULL_RELOAD_MS = 15 * 60_000;
/**
 * An event's index not searched for this long is dropped from memory. A race day's searches come in
 * waves with quiet hours between: at 30 min the first participant after each lull paid the reload.
 */
export const IDLE_EVICT_MS = 6 * 60 * 60_000;
/** The most faces the cache holds by default, all events together (~0.7 KB each); past it, the least recently searched go first. */
export const DEFAULT_MAX_CACHED_FACES = 1_000_000;
const LOAD_BATCH = 20_000;

export interface FaceHit {
  /** What the face belongs to: a photo id, or `<video id>@<seconds>` for a video frame. */
  ref: string;
  distance: number;
}

/** The faces of one descriptor family of an event: the matrix, and for each row what the face belongs to. */
class FamilyFaces {
  readonly matrix = new FaceMatrix(1024);
  readonly rowRef: number[] = [];
  /** Each row's descriptor version, when not the family's usual one (its calibration: maxDistanceFor). */
  readonly rowVersion = new Map<number, number>();
  /** Each row's quality when measured (rows stored before have none). */
  readonly rowQuality = new Map<number, number>();
  /** Rows in a group (row -> group). */
  readonly rowGroup = new Map<number, number>();
  /** Each row's face id (ids of stored faces stay far below 2^53). */
  readonly rowFaceId: number[] = [];

  /** How much farther than the threshold's distance the family matches (CHIP_DISTANCE_SHIFT for the chip family). */
  constructor(
    readonly usualVersion: number,
    readonly shift: number,
  ) {}
}

/**
 * The faces of one event in memory, by descriptor family (descriptorFamily): a selfie's descriptor
 * of one family is only ever compared with faces of that family.
 */
export class EventFaceIndex {
  private readonly families: Record<DescriptorFamily, FamilyFaces> = {
    chip: new FamilyFaces(FACE_DESCRIPTOR_VERSION, CHIP_DISTANCE_SHIFT),
    box: new FamilyFaces(BOX_DESCRIPTOR_VERSION, 0),
  };
  /** Each group's refs (groups are video tracks: one family each, since a video is indexed at one version). */
  private readonly groupIndex = new Map<string, number>();
  private readonly groupRefs: Array<Set<number>> = [];
  private readonly refs: string[] = [];
  private readonly refIndex = new Map<string, number>();
  private readonly loadedIds = new Set<string>();
  maxId = 0n;
  revision: string | null = null;
  checkedAt = 0;
  builtAt = Date.now();
  usedAt = Date.now();

  /** Faces held, all families. */
  get size(): number {
    return this.families.chip.matrix.size + this.families.box.matrix.size;
  }

  /** Faces held of the box family (stored before descriptor version 4: re-embedding has not reached them yet). */
  get boxFaces(): number {
    return this.families.box.matrix.size;
  }

  add(
    faceId: string,
    ref: string,
    embedding: Buffer,
    version: number = FACE_DESCRIPTOR_VERSION,
    group: string | null = null,
    quality: number | null = null,
  ): void {
    if (this.loadedIds.has(faceId)) return;
    this.loadedIds.add(faceId);
    let index = this.refIndex.get(ref);
    if (index === undefined) {
      index = this.refs.push(ref) - 1;
      this.refIndex.set(ref, index);
    }
    const family = this.families[descriptorFamily(version)];
    const row = family.matrix.add(bufferToDescriptor(embedding));
    if (version !== family.usualVersion) family.rowVersion.set(row, version);
    if (quality !== null) family.rowQuality.set(row, quality);
    if (group !== null) {
      let g = this.groupIndex.get(group);
      if (g === undefined) {
        g = this.groupRefs.push(new Set()) - 1;
        this.groupIndex.set(group, g);
      }
      this.groupRefs[g].add(index);
      family.rowGroup.set(row, g);
    }
    family.rowRef.push(index);
    family.rowFaceId.push(Number(faceId));
    const id = BigInt(faceId);
    if (id > this.maxId) this.maxId = id;
  }

  /** The ids of the faces held above `id`: what an incremental load need not read again. */
  idsAbove(id: bigint): string[] {
    const floor = Number(id);
    const out: string[] = [];
    for (const family of Object.values(this.families))
      for (const faceId of family.rowFaceId) if (faceId > floor) out.push(String(faceId));
    return out;
  }

  /**
   * What has a face within `maxDistance` (or is in the group of one), each with its nearest face's
   * distance on the threshold's scale (the chip family's minus CHIP_DISTANCE_SHIFT), nearest first. Each face
   * is compared with the selfie's descriptor of its own family only; its own distance limit depends
   * on its descriptor version and quality (maxDistanceFor); a face nearer to someone surely else
   * (of its family) than to the selfie is no match (nearerToStranger).
   */
  search(query: SelfieDescriptors, maxDistance: number, maxFaces: number): FaceHit[] {
    const best = new Map<number, number>();
    for (const name of ['chip', 'box'] as const) {
      const descriptor = query[name];
      const family = this.families[name];
      if (!descriptor || family.matrix.size === 0) continue;
      const sameOwner = (a: number, b: number) =>
        family.rowRef[a] === family.rowRef[b] ||
        (family.rowGroup.has(a) && family.rowGroup.get(a) === family.rowGroup.get(b));
      for (const { row, distance } of family.matrix.within(descriptor, widestDistanceFor(maxDistance), maxFaces)) {
        const limit = maxDistanceFor(
          family.rowVersion.get(row) ?? family.usualVersion,
          maxDistance,
          family.rowQuality.get(row) ?? null,
        );
        if (distance > limit) continue;
        if (nearerToStranger(family.matrix, descriptor, row, distance, sameOwner)) continue;
        const onScale = Math.max(0, distance - family.shift);
        const group = family.rowGroup.get(row);
        for (const ref of group === undefined ? [family.rowRef[row]] : this.groupRefs[group]) {
          if ((best.get(ref) ?? Infinity) > onScale) best.set(ref, onScale);
        }
      }
    }
    return [...best].sort((a, b) => a[1] - b[1]).map(([ref, distance]) => ({ ref: this.refs[ref], distance }));
  }
}

/**
 * The face indexes of the events searched by this process (photo faces, or video-frame faces),
 * loaded lazily from Postgres and kept fresh incrementally: when the event's revision (bumped by the
 * ml-worker) moved, or at least every minute (in the background), the faces added since the last load are read. Faces of
 * unpublished photos are indexed too; the photo search keeps only published photos.
 */
export class FaceIndexCache {
  private readonly indexes = new Map<number, EventFaceIndex>();
  private readonly loading = new Map<number, Promise<EventFaceIndex>>();

  constructor(
    private readonly kind: FaceIndexKind,
    /** Where the faces come from: the photos repository, or the videos repository. */
    private readonly source: FaceRowSource,
    private readonly revisions: FaceIndexRevisions,
    private readonly logger: Logger,
    /** The most faces held, all events together: past it, the indexes searched longest ago are dropped. */
    private readonly maxFaces = DEFAULT_MAX_CACHED_FACES,
  ) {}

  async search(eventId: number, query: SelfieDescriptors, maxDistance: number, maxFaces: number): Promise<FaceHit[]> {
    const index = await this.fresh(eventId);
    index.usedAt = Date.now();
    return index.search(query, maxDistance, maxFaces);
  }

  /**
   * Whether the event's faces may include some of the box family (stored before version 4), so a
   * selfie needs its box descriptor too: yes unless the event's index is in memory and holds none
   * (re-embedding only ever removes them; a full reload drops the replaced ones).
   */
  mayHoldBoxFaces(eventId: number): boolean {
    const index = this.indexes.get(eventId);
    return !index || index.boxFaces > 0;
  }

  /** The faces held in memory for an event (0 when not loaded). */
  size(eventId: number): number {
    return this.indexes.get(eventId)?.size ?? 0;
  }

  /**
   * The index to search. Only the first load, and a load of faces the revision says were added,
   * make a search wait; a refresh that only time asks for (the staleness check, the full rebuild)
   * runs in the background while searches use the index in memory.
   */
  private async fresh(eventId: number): Promise<EventFaceIndex> {
    this.evict(eventId);
    const current = this.indexes.get(eventId);
    const pending = this.loading.get(eventId);
    if (!current && pending) return pending;
    const revision = await this.revisions.read(this.kind, eventId);
    if (!current) return this.loading.get(eventId) ?? this.startLoad(eventId, new EventFaceIndex(), revision);
    if (revision !== null && revision !== current.revision)
      return this.loading.get(eventId) ?? this.startLoad(eventId, current, revision);
    const now = Date.now();
    const rebuild = now - current.builtAt >= FULL_RELOAD_MS;
    if (!this.loading.has(eventId) && (rebuild || revision === null || now - current.checkedAt >= MAX_STALENESS_MS)) {
      this.startLoad(eventId, rebuild ? new EventFaceIndex() : current, revision).catch((err: Error) =>
        this.logger.warn(
          { kind: this.kind, eventId, err: err.message },
          'face index refresh failed; searches use the index in memory',
        ),
      );
    }
    return current;
  }

  private startLoad(eventId: number, index: EventFaceIndex, revision: string | null): Promise<EventFaceIndex> {
    const load = this.load(eventId, index, revision).finally(() => this.loading.delete(eventId));
    this.loading.set(eventId, load);
    return load;
  }

  private async load(eventId: number, index: EventFaceIndex, revision: string | null): Promise<EventFaceIndex> {
    const started = Date.now();
    const before = index.size;
    let after = index.maxId > BigInt(ID_OVERLAP) ? index.maxId - BigInt(ID_OVERLAP) : 0n;
    // The overlap is re-read for faces committed out of id order; those already held are not sent again.
    const held = before > 0 ? index.idsAbove(after) : [];
    for (;;) {
      const rows = await this.source.facesAfter(eventId, after.toString(), LOAD_BATCH, held);
      for (const r of rows) index.add(r.id, r.ref, r.embedding, r.version, r.group, r.quality ?? null);
      if (rows.length < LOAD_BATCH) break;
      after = BigInt(rows[rows.length - 1].id);
    }
    index.revision = revision;
    index.checkedAt = Date.now();
    this.indexes.set(eventId, index);
    const added = index.size - before;
    if (added > 0)
      this.logger.info(
        { kind: this.kind, eventId, added, faces: index.size, boxFaces: index.boxFaces, ms: Date.now() - started },
        'face index loaded',
      );
    return index;
  }

  /** Drops indexes idle too long, then the least recently searched while over the face budget (never `searched`'s). */
  private evict(searched: number): void {
    const now = Date.now();
    let total = 0;
    for (const [eventId, index] of this.indexes) {
      if (now - index.usedAt > IDLE_EVICT_MS) this.indexes.delete(eventId);
      else total += index.size;
    }
    if (total <= this.maxFaces) return;
    const oldestFirst = [...this.indexes]
      .filter(([eventId]) => eventId !== searched)
      .sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [eventId, index] of oldestFirst) {
      if (total <= this.maxFaces) break;
      this.indexes.delete(eventId);
      total -= index.size;
    }
  }
}
