import {
  AppError,
  appliedMatchPercent,
  descriptorToBuffer,
  Event,
  FaceIndexCache,
  FaceMatch,
  guardOperation,
  requireRequestId,
  newId,
  Orm,
  Page,
  PAGE_LIMITS,
  pageInfo,
  percentToDistance,
  Principal,
  resolvePage,
  SelfieEmbedder,
  similarityPercent,
  findFaceSearch,
  PageRequest,
  publishedAmong,
  StoredFaceSearch,
  visibleMatches,
} from '@em/core';

export interface FaceSearchPage extends Page<FaceMatch> {
  requestId: string;
  /** The threshold that filtered the matches, in percent (the default when the event configures none). */
  confidencePercentage: number;
  /** True when the answer came from the stored result of an earlier search. */
  cached: boolean;
  facesFound: number;
}

export interface FaceSearchUsage {
  billableSearches: number;
  cachedRetries: number;
}

/** Faces of the same person on one photo can be many; the index is asked for this many faces per photo kept. */
const FACES_PER_PHOTO = 4;

/**
 * Selfie search: the selfie's largest face against the event's face index, matches above the
 * event's threshold stored under the request_id (the cache that GET, retries, clipping and
 * downloads read). A stored result is never matched again.
 */
export class FaceSearchService {
  constructor(
    private readonly orm: Orm,
    private readonly embedder: SelfieEmbedder,
    private readonly index: FaceIndexCache,
    private readonly maxPhotos: number,
  ) {}

  async search(
    principal: Principal,
    orgId: number,
    eventId: number,
    selfie: () => Promise<Buffer>,
    requestId: string | null | undefined,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<FaceSearchPage> {
    const event = await guardOperation(this.orm.em, principal, 'searchFaces', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const id = this.requestIdOrNew(requestId);
    const file = await selfie();
    this.embedder.checkSize(file);

    // The selfie is checked and embedded while the stored search is looked up (a retry, rare, wastes
    // that embedding: its answer is the stored one, even when the file is not a photo).
    const embedding = this.embedder.prepare(file).then((prepared) => this.embedder.embed(prepared));
    embedding.catch(() => undefined);
    // A request_id names a search of this event only: one of another event is no concern here.
    const stored = await findFaceSearch(this.orm.em, eventId, id);
    if (stored) return this.retry(stored, request);

    const { descriptor, facesFound } = await embedding;
    const threshold = appliedMatchPercent(event.confidenceThreshold);
    const matches = descriptor ? await this.match(event, descriptor, threshold) : [];
    const inserted: Array<{ request_id: string }> = await this.orm.em.getConnection().execute(
      `insert into face_searches (request_id, organisation_id, event_id, api_key_id, embedding, confidence_threshold, matches, faces_found, billable)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, true) on conflict (event_id, request_id) do nothing returning request_id`,
      [id, orgId, eventId, principal.apiKeyId ?? null, descriptor ? descriptorToBuffer(descriptor) : null, threshold, JSON.stringify(matches), facesFound],
    );
    // A concurrent request with the same id stored first: answer as its retry.
    if (inserted.length === 0) return this.retry((await findFaceSearch(this.orm.em, eventId, id))!, request);
    // The matches were filtered by publication a moment ago: not read again.
    return this.page({ requestId: id, orgId, eventId, confidenceThreshold: threshold, matches, facesFound }, request, false, matches);
  }

  /** A stored search by request_id (never matched again); 404 when unknown to this event. */
  async cached(principal: Principal, orgId: number, eventId: number, requestId: string, page?: number | null, pageSize?: number | null): Promise<FaceSearchPage> {
    await guardOperation(this.orm.em, principal, 'faceSearch', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const stored = await findFaceSearch(this.orm.em, eventId, requireRequestId(requestId));
    if (!stored || stored.orgId !== orgId) throw new AppError('NOT_FOUND', 'No face search with this request_id for this event');
    return this.page(stored, request, true);
  }

  /** Billable searches (first runs) and free cached retries of an organisation, optionally in a time window. */
  async usage(orgId: number, from?: Date | null, to?: Date | null, eventId?: number | null): Promise<FaceSearchUsage> {
    const [row] = await this.orm.em.getConnection().execute(
      `select count(*) filter (where billable)::int as billable, coalesce(sum(cache_hits), 0)::int as retries
         from face_searches
        where organisation_id = ? and (?::int is null or event_id = ?) and (?::timestamptz is null or created_at >= ?) and (?::timestamptz is null or created_at < ?)`,
      [orgId, eventId ?? null, eventId ?? null, from ?? null, from ?? null, to ?? null, to ?? null],
    );
    return { billableSearches: row.billable, cachedRetries: row.retries };
  }

  private requestIdOrNew(requestId: string | null | undefined): string {
    if (requestId === undefined || requestId === null || requestId === '') return newId();
    return requireRequestId(requestId);
  }

  private async retry(stored: StoredFaceSearch, request: PageRequest): Promise<FaceSearchPage> {
    await this.orm.em
      .getConnection()
      .execute('update face_searches set cache_hits = cache_hits + 1, updated_at = now() where event_id = ? and request_id = ?', [stored.eventId, stored.requestId]);
    return this.page(stored, request, true);
  }

  /** Photos of the event with a face above the threshold, best first (ties: photo id), at most maxPhotos. */
  private async match(event: Event, descriptor: Float32Array, thresholdPercent: number): Promise<FaceMatch[]> {
    const maxDistance = percentToDistance(thresholdPercent);
    const found = await this.index.search(event.id, descriptor, maxDistance, this.maxPhotos * FACES_PER_PHOTO);
    if (found.length === 0) return [];
    const visible = await publishedAmong(this.orm.em, found.map((f) => f.ref), event.id);
    return found
      .filter((f) => visible.has(f.ref))
      .sort((a, b) => a.distance - b.distance || (a.ref < b.ref ? -1 : 1))
      .slice(0, this.maxPhotos)
      .map((f) => ({ photoId: f.ref, confidence: similarityPercent(f.distance) }));
  }

  /** One page of a stored result; photos unpublished or deleted since are left out. */
  private async page(stored: StoredFaceSearch, request: PageRequest, cached: boolean, visible?: FaceMatch[]): Promise<FaceSearchPage> {
    const matches = visible ?? (await visibleMatches(this.orm.em, stored));
    return {
      requestId: stored.requestId,
      // Searches stored without a threshold were matched with the default.
      confidencePercentage: appliedMatchPercent(stored.confidenceThreshold),
      cached,
      facesFound: stored.facesFound,
      items: matches.slice(request.offset, request.offset + request.pageSize),
      pageInfo: pageInfo(matches.length, request),
    };
  }
}
