import { AppError } from '@em/core';
import { FaceHit } from '@em/core/face-index';
import { DEFAULT_MATCH_PERCENT, selfieDescriptorsToBuffer, similarityPercent } from '@em/core/media';
import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryFaceSearchesRepository,
  InMemoryPhotosRepository,
} from '@em/core/testing';
import { FaceSearchService } from './face-search.service';

const REQUEST_ID = '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11';
const selfie = async () => Buffer.from('selfie');

/** The selfie side: counts the embeddings asked for (each one is a paid trip to the worker). */
class FakeEmbedder {
  embedded = 0;
  descriptor: Float32Array | null = new Float32Array(128).fill(0.1);
  checkSize(file: Buffer) {
    if (file.length === 0) throw Object.assign(new Error('empty'), { code: 'BAD_REQUEST' });
  }
  /** True while the selfie queue is too long to answer in time (the real one answers UNAVAILABLE). */
  busy = false;
  async admit() {
    if (this.busy) throw new AppError('UNAVAILABLE', 'Face matching is busy; retry in 3 s', { retryAfterSeconds: 3 });
  }
  async prepare(file: Buffer) {
    return file;
  }
  boxAsked: boolean[] = [];
  async embed(_prepared: Buffer, opts: { boxDescriptor?: boolean } = {}) {
    this.embedded++;
    this.boxAsked.push(opts.boxDescriptor !== false);
    const box = opts.boxDescriptor !== false && this.descriptor ? this.descriptor.map((v) => v + 0.1) : null;
    return {
      descriptors: this.descriptor ? { chip: this.descriptor, box } : null,
      facesFound: this.descriptor ? 1 : 0,
    };
  }
}

/** The face index: hits by distance; records the largest distance asked for. */
class FakeFaceIndex {
  maxDistance = NaN;
  boxFaces = true;
  queries: unknown[] = [];
  mayHoldBoxFaces() {
    return this.boxFaces;
  }
  constructor(public hits: FaceHit[]) {}
  async search(_eventId: number, query: unknown, maxDistance: number) {
    this.queries.push(query);
    this.maxDistance = maxDistance;
    return this.hits.filter((h) => h.distance <= maxDistance);
  }
}

function setup(threshold: number | null = null, maxPhotos = 10) {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, selfieSearch: true, confidenceThreshold: threshold });
  const photos = new InMemoryPhotosRepository(events);
  for (const id of ['p1', 'p2', 'p3']) photos.add({ id, eventId: 5, publishedAt: new Date() });
  photos.add({ id: 'hidden', eventId: 5, publishedAt: null });
  const searches = new InMemoryFaceSearchesRepository();
  const embedder = new FakeEmbedder();
  const index = new FakeFaceIndex([
    { ref: 'p2', distance: 0.3 },
    { ref: 'hidden', distance: 0.1 },
    { ref: 'p1', distance: 0.2 },
    { ref: 'p3', distance: 0.75 },
  ]);
  const service = new FaceSearchService(events, photos, searches, embedder, index, maxPhotos);
  return { photos, searches, embedder, index, service };
}

describe('FaceSearchService', () => {
  it('matches published photos best first, stores the search under its request_id and reports the threshold it applied (the default)', async () => {
    const { searches, service, index } = setup();
    const page = await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID);
    expect(page).toMatchObject({
      requestId: REQUEST_ID,
      cached: false,
      confidencePercentage: DEFAULT_MATCH_PERCENT,
      facesFound: 1,
    });
    expect(page.items.map((m) => m.photoId)).toEqual(['p1', 'p2']);
    expect(page.items[0].confidence).toBe(similarityPercent(0.2));
    expect(index.maxDistance).toBeLessThan(0.75);
    expect(searches.get(5, REQUEST_ID)).toMatchObject({
      confidenceThreshold: DEFAULT_MATCH_PERCENT,
      billable: true,
      cacheHits: 0,
      apiKeyId: 1,
    });
  });

  it("asks for the selfie's box-family descriptor only while the event may hold faces stored before version 4, and stores what it matched with", async () => {
    const { searches, service, index, embedder } = setup();
    await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID);
    const both = { chip: embedder.descriptor!, box: embedder.descriptor!.map((v) => v + 0.1) };
    expect(index.queries).toEqual([both]);
    expect(searches.get(5, REQUEST_ID)!.embedding).toEqual(selfieDescriptorsToBuffer(both));
    index.boxFaces = false;
    await service.search(apiKeyPrincipal(1), 1, 5, selfie, '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d12');
    expect(embedder.boxAsked).toEqual([true, false]);
    expect(index.queries[1]).toEqual({ chip: embedder.descriptor, box: null });
  });

  it("applies and reports the event's own threshold", async () => {
    const { service } = setup(10);
    const page = await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID);
    expect(page.confidencePercentage).toBe(10);
    expect(page.items.map((m) => m.photoId)).toEqual(['p1', 'p2', 'p3']);
  });

  it('a retry with the same request_id costs nothing: no embedding, no matching, counted as a cache hit, same answer', async () => {
    const { searches, embedder, service, index } = setup();
    const first = await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID);
    index.hits = [];
    const retry = await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID.toUpperCase());
    expect(embedder.embedded).toBe(1);
    expect(retry).toMatchObject({ cached: true, confidencePercentage: DEFAULT_MATCH_PERCENT, items: first.items });
    expect(searches.get(5, REQUEST_ID)!.cacheHits).toBe(1);
    expect(await service.usage(apiKeyPrincipal(1), 1)).toEqual({ billableSearches: 1, cachedRetries: 1 });
    expect(await service.usage(apiKeyPrincipal(1), 1, null, null, 6)).toEqual({
      billableSearches: 0,
      cachedRetries: 0,
    });
    // Another organisation's key reads nothing of this one's usage.
    await expect(service.usage(apiKeyPrincipal(2), 1)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('a busy selfie queue: UNAVAILABLE before any embedding, nothing stored; a stored search is still answered', async () => {
    const { searches, embedder, service } = setup();
    embedder.busy = true;
    await expect(service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      details: { retryAfterSeconds: 3 },
    });
    expect(embedder.embedded).toBe(0);
    expect(searches.get(5, REQUEST_ID)).toBeUndefined();
    // The retry with the same request_id, once the queue is shorter, runs the search.
    embedder.busy = false;
    expect(await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID)).toMatchObject({ cached: false });
    // A retry of a stored search needs no embedding: answered even while busy.
    embedder.busy = true;
    expect(await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID)).toMatchObject({ cached: true });
  });

  it('a stored result leaves out photos unpublished since', async () => {
    const { photos, service } = setup();
    await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID);
    photos.rows.get('p1')!.publishedAt = null;
    const page = await service.cached(apiKeyPrincipal(1), 1, 5, REQUEST_ID);
    expect(page.items.map((m) => m.photoId)).toEqual(['p2']);
    expect(page.pageInfo.total).toBe(1);
  });

  it('a selfie without a face is stored with no matches; a new search without request_id gets one', async () => {
    const { embedder, service } = setup();
    embedder.descriptor = null;
    const page = await service.search(apiKeyPrincipal(1), 1, 5, selfie, null);
    expect(page).toMatchObject({ facesFound: 0, items: [], cached: false });
    expect(page.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET of an unknown request_id is 404, a malformed one 400; an empty selfie is refused before anything is stored', async () => {
    const { searches, service } = setup();
    await expect(service.cached(apiKeyPrincipal(1), 1, 5, REQUEST_ID)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.cached(apiKeyPrincipal(1), 1, 5, 'x')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      service.search(apiKeyPrincipal(1), 1, 5, async () => Buffer.alloc(0), REQUEST_ID),
    ).rejects.toBeDefined();
    expect(searches.rows.size).toBe(0);
  });

  it("answers the gateway whether a request_id is stored for the caller's organisation in that event", async () => {
    const { service } = setup();
    await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID);
    expect(await service.isStoredForCaller(apiKeyPrincipal(1), 5, REQUEST_ID.toUpperCase())).toBe(true);
    // Another organisation, another event, an unknown or malformed id: not stored, and never an error.
    expect(await service.isStoredForCaller(apiKeyPrincipal(2), 5, REQUEST_ID)).toBe(false);
    expect(await service.isStoredForCaller(apiKeyPrincipal(1), 6, REQUEST_ID)).toBe(false);
    expect(await service.isStoredForCaller(apiKeyPrincipal(1), 5, '0b7e1c52-4a36-4d0e-9b59-000000000000')).toBe(false);
    expect(await service.isStoredForCaller(apiKeyPrincipal(1), 5, 'not-a-uuid')).toBe(false);
  });

  it('keeps at most maxPhotos matches', async () => {
    const { service } = setup(10, 2);
    expect((await service.search(apiKeyPrincipal(1), 1, 5, selfie, REQUEST_ID)).items.map((m) => m.photoId)).toEqual([
      'p1',
      'p2',
    ]);
  });
});
