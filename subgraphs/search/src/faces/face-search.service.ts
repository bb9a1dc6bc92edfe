import {
  AppError,
  dateArgument,
  Logger,
  parseRequestId,
  principalOrganisations,
  requireRequestId,
  newId,
  Page,
  PAGE_LIMITS,
  pageInfo,
  Principal,
  resolvePage,
  PageRequest,
} from '@em/core';
import {
  Event,
  EventsRepository,
  FaceMatch,
  FaceSearchesRepository,
  guardOperation,
  guardOrganisationOperation,
  PhotosRepository,
  StoredFaceSearch,
  visibleMatches,
} from '@em/core/data';
import { FaceIndexCache } from '@em/core/face-index';
import {
  appliedMatchPercent,
  selfieDescriptorsToBuffer,
  SelfieDescriptors,
  percentToDistance,
  SelfieEmbedder,
  similarityPercent,
} from '@em/core/media';
import { StageTimer } from './stage-timer';

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
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly searches: FaceSearchesRepository,
    private readonly embedder: Pick<SelfieEmbedder, 'checkSize' | 'admit' | 'prepare' | 'embed'>,
    private readonly index: Pick<FaceIndexCache, 'search' | 'mayHoldBoxFaces'>,
    private readonly maxPhotos: number,
    /** One 'selfie search timing' line per search (info), stage by stage, so a slow tail can be explained. */
    private readonly logger?: Pick<Logger, 'info'>,
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
    const timer = new StageTimer();
    const event = await guardOperation(this.events, principal, 'searchFaces', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const id = this.requestIdOrNew(requestId);
    timer.lap('guard');
    const file = await selfie();
    this.embedder.checkSize(file);
    timer.lap('upload');

    // A request_id names a search of this event only: one of another event is no concern here.
    const stored = await this.searches.find(eventId, id);
    if (stored) return this.retry(stored, request);
    timer.lap('lookup');

    // Looked up first: a retry is charged as a read by the gateway, so it must not cost an embedding.
    // Then 503 at once when the selfie queue is too long to answer in time, before the selfie is decoded.
    await this.embedder.admit();
    const prepared = await this.embedder.prepare(file);
    timer.lap('prepare');
    // The box family's descriptor only while the event may hold faces stored before version 4 (~50 ms of CPU less per selfie).
    const { descriptors, facesFound, timing } = await this.embedder.embed(prepared, {
      boxDescriptor: this.index.mayHoldBoxFaces(event.id),
      admitted: true,
    });
    timer.lap('embed');
    if (timing)
      for (const [stage, ms] of Object.entries(timing) as Array<[string, number]>)
        timer.add(`embed.${stage.replace(/Ms$/, '')}`, ms);
    const threshold = appliedMatchPercent(event.confidenceThreshold);
    const matches = descriptors ? await this.match(event, descriptors, threshold, timer) : [];
    const search = {
      requestId: id,
      orgId,
      eventId,
      confidenceThreshold: threshold,
      matches,
      facesFound,
      embedding: descriptors ? selfieDescriptorsToBuffer(descriptors) : null,
    };
    // A concurrent request with the same id stored first: answer as its retry.
    if (!(await this.searches.insertIfAbsent({ ...search, apiKeyId: principal.apiKeyId ?? null })))
      return this.retry((await this.searches.find(eventId, id))!, request);
    timer.lap('store');
    // The matches were filtered by publication a moment ago: not read again.
    const answer = await this.page(search, request, false, matches);
    this.logger?.info(
      { requestId: id, eventId, matches: matches.length, totalMs: timer.totalMs, stages: timer.stages },
      'selfie search timing',
    );
    return answer;
  }

  /** A stored search by request_id (never matched again); 404 when unknown to this event. */
  async cached(
    principal: Principal,
    orgId: number,
    eventId: number,
    requestId: string,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<FaceSearchPage> {
    await guardOperation(this.events, principal, 'faceSearch', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const stored = await this.searches.find(eventId, requireRequestId(requestId));
    if (!stored || stored.orgId !== orgId)
      throw new AppError('NOT_FOUND', 'No face search with this request_id for this event');
    return this.page(stored, request, true);
  }

  /**
   * Whether the caller's organisation has a stored search with this request_id in the event: the gateway asks it
   * before charging a searchFaces call, whose retry is a read. No guard: it answers only for the caller's own
   * organisations, and an unusable id is simply not stored.
   */
  async isStoredForCaller(principal: Principal, eventId: number, requestId: string): Promise<boolean> {
    const id = parseRequestId(requestId);
    const orgIds = principalOrganisations(principal);
    if (id === null || !Number.isSafeInteger(eventId) || orgIds.length === 0) return false;
    return this.searches.existsForOrganisations(eventId, id, orgIds);
  }

  /** Billable searches (first runs) and free cached retries of an organisation, optionally in a time window. */
  async usage(
    principal: Principal,
    orgId: number,
    from?: Date | null,
    to?: Date | null,
    eventId?: number | null,
  ): Promise<FaceSearchUsage> {
    guardOrganisationOperation(principal, 'faceSearchUsage', orgId);
    const row = await this.searches.usage(orgId, {
      eventId,
      from: dateArgument('from', from),
      to: dateArgument('to', to),
    });
    return { billableSearches: row.billable, cachedRetries: row.retries };
  }

  private requestIdOrNew(requestId: string | null | undefined): string {
    if (requestId === undefined || requestId === null || requestId === '') return newId();
    return requireRequestId(requestId);
  }

  private async retry(stored: StoredFaceSearch, request: PageRequest): Promise<FaceSearchPage> {
    await this.searches.recordCacheHit(stored.eventId, stored.requestId);
    return this.page(stored, request, true);
  }

  /** Photos of the event with a face above the threshold, best first (ties: photo id), at most maxPhotos. */
  private async match(
    event: Event,
    descriptors: SelfieDescriptors,
    thresholdPercent: number,
    timer: StageTimer,
  ): Promise<FaceMatch[]> {
    const maxDistance = percentToDistance(thresholdPercent);
    const found = await this.index.search(event.id, descriptors, maxDistance, this.maxPhotos * FACES_PER_PHOTO);
    timer.lap('index');
    if (found.length === 0) return [];
    const visible = await this.photos.publishedAmong(
      found.map((f) => f.ref),
      event.id,
    );
    timer.lap('published');
    return found
      .filter((f) => visible.has(f.ref))
      .sort((a, b) => a.distance - b.distance || (a.ref < b.ref ? -1 : 1))
      .slice(0, this.maxPhotos)
      .map((f) => ({ photoId: f.ref, confidence: similarityPercent(f.distance) }));
  }

  /** One page of a stored result; photos unpublished or deleted since are left out. */
  private async page(
    stored: StoredFaceSearch,
    request: PageRequest,
    cached: boolean,
    visible?: FaceMatch[],
  ): Promise<FaceSearchPage> {
    const matches = visible ?? (await visibleMatches(this.photos, stored));
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
