import { AppError } from '@em/core';
import { FaceHit } from '@em/core/face-index';
import { descriptorToBuffer, SelfieDescriptors, selfieDescriptorsToBuffer } from '@em/core/media';
import {
  apiKeyPrincipal,
  InMemoryClipRequestsRepository,
  InMemoryEventsRepository,
  InMemoryFaceSearchesRepository,
  InMemoryObjectStore,
  InMemoryVideosRepository,
  RecordingJobProducer,
  RecordingPublisher,
} from '@em/core/testing';
import { ClippingService } from './clipping.service';

const REQUEST_ID = '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11';
const selfie = async () => Buffer.from('selfie');

class FakeEmbedder {
  embedded = 0;
  /** True while the selfie queue is too long to answer in time (the real one answers UNAVAILABLE). */
  busy = false;
  async admit() {
    if (this.busy) throw new AppError('UNAVAILABLE', 'Face matching is busy; retry in 3 s', { retryAfterSeconds: 3 });
  }
  async prepare(file: Buffer) {
    return file;
  }
  async embed() {
    this.embedded++;
    return {
      descriptors: { chip: new Float32Array(128).fill(0.2), box: new Float32Array(128).fill(0.3) },
      facesFound: 1,
    };
  }
}

class FakeFaceIndex {
  queries: SelfieDescriptors[] = [];
  constructor(public hits: FaceHit[] = []) {}
  mayHoldBoxFaces() {
    return true;
  }
  async search(_eventId: number, query: SelfieDescriptors) {
    this.queries.push(query);
    return this.hits;
  }
}

function setup() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, videoSearch: true, videoSelfieClipping: true });
  const videos = new InMemoryVideosRepository(events);
  const requests = new InMemoryClipRequestsRepository(events, videos);
  const searches = new InMemoryFaceSearchesRepository();
  const store = new InMemoryObjectStore();
  const embedder = new FakeEmbedder();
  const index = new FakeFaceIndex();
  const jobs = new RecordingJobProducer();
  const redis = new RecordingPublisher();
  const service = new ClippingService(
    events,
    requests,
    searches,
    videos,
    store.asStore,
    embedder,
    index,
    jobs,
    redis.asRedis,
  );
  const indexed = videos.add({ eventId: 5, sourceKey: 'finish', status: 'indexed' });
  const pending = videos.add({ eventId: 5, sourceKey: 'start', status: 'indexing' });
  return { videos, requests, searches, store, embedder, index, jobs, redis, service, indexed, pending };
}

const start = (s: ReturnType<typeof setup>, input: Parameters<ClippingService['start']>[3]) =>
  s.service.start(apiKeyPrincipal(1), 1, 5, input);

describe('ClippingService', () => {
  it('a selfie seen in indexed videos: processing, matched frames per video in order, a clip job, the status announced', async () => {
    const s = setup();
    s.index.hits = [
      { ref: `${s.indexed.id}@12.5`, distance: 0.2 },
      { ref: `${s.pending.id}@3`, distance: 0.1 },
      { ref: `${s.indexed.id}@2`, distance: 0.3 },
    ];
    expect(await start(s, { selfie, requestId: REQUEST_ID })).toEqual({ requestId: REQUEST_ID, status: 'processing' });
    const row = (await s.requests.find({ eventId: 5, requestId: REQUEST_ID }))!;
    expect(row).toMatchObject({
      status: 'processing',
      generation: 1,
      matches: [{ videoId: s.indexed.id, times: [2, 12.5] }],
    });
    expect(s.jobs.of('clips')).toEqual([
      { eventId: 5, requestId: REQUEST_ID, generation: 1, httpRequestId: 'req-test' },
    ]);
    expect(s.redis.statuses()).toEqual(['processing']);
  });

  it('a busy selfie queue: UNAVAILABLE before any embedding, no request recorded, no job', async () => {
    const s = setup();
    s.embedder.busy = true;
    await expect(start(s, { selfie, requestId: REQUEST_ID })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(s.embedder.embedded).toBe(0);
    expect(await s.requests.find({ eventId: 5, requestId: REQUEST_ID })).toBeNull();
    expect(s.jobs.queued).toEqual([]);
  });

  it('nothing matched: no_matches at once, no job', async () => {
    const s = setup();
    expect((await start(s, { selfie })).status).toBe('no_matches');
    expect(s.jobs.queued).toEqual([]);
  });

  it("a request_id of a face search without a selfie reuses that search's descriptor; without either it is 400", async () => {
    const s = setup();
    await s.searches.insertIfAbsent({
      requestId: REQUEST_ID,
      orgId: 1,
      eventId: 5,
      apiKeyId: 1,
      confidenceThreshold: 62,
      matches: [],
      facesFound: 1,
      embedding: descriptorToBuffer(new Float32Array(128)),
    });
    s.index.hits = [{ ref: `${s.indexed.id}@1`, distance: 0.2 }];
    expect((await start(s, { selfie: null, requestId: REQUEST_ID })).status).toBe('processing');
    expect(s.embedder.embedded).toBe(0);
    // A search stored before descriptor version 4 holds a box descriptor only: never compared with version 4 faces.
    expect(s.index.queries).toEqual([{ chip: null, box: new Float32Array(128) }]);
    await expect(start(s, { selfie: null, requestId: '0b7e1c52-4a36-4d0e-9b59-000000000000' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(start(s, { selfie: null })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('a selfie is matched and stored with its descriptors of both families; force_recreate matches with the stored ones', async () => {
    const s = setup();
    const both = { chip: new Float32Array(128).fill(0.2), box: new Float32Array(128).fill(0.3) };
    await start(s, { selfie, requestId: REQUEST_ID });
    expect((await s.requests.find({ eventId: 5, requestId: REQUEST_ID }))!.embedding).toEqual(
      selfieDescriptorsToBuffer(both),
    );
    await start(s, { selfie: null, requestId: REQUEST_ID, forceRecreate: true });
    expect(s.index.queries).toEqual([both, both]);
  });

  it('a repeat without a selfie answers the request as it is; force_recreate starts the next generation (not while processing)', async () => {
    const s = setup();
    await start(s, { selfie, requestId: REQUEST_ID });
    expect(await start(s, { selfie: null, requestId: REQUEST_ID })).toEqual({
      requestId: REQUEST_ID,
      status: 'no_matches',
    });
    s.index.hits = [{ ref: `${s.indexed.id}@1`, distance: 0.2 }];
    expect((await start(s, { selfie: null, requestId: REQUEST_ID, forceRecreate: true })).status).toBe('processing');
    expect((await s.requests.find({ eventId: 5, requestId: REQUEST_ID }))!.generation).toBe(2);
    expect(await start(s, { selfie: null, requestId: REQUEST_ID, forceRecreate: true })).toEqual({
      requestId: REQUEST_ID,
      status: 'processing',
    });
    expect(s.jobs.of('clips')).toHaveLength(1);
  });

  it('when the clip job cannot be queued the request ends failed, and says so', async () => {
    const s = setup();
    s.index.hits = [{ ref: `${s.indexed.id}@1`, distance: 0.2 }];
    s.jobs.failNext = true;
    expect((await start(s, { selfie, requestId: REQUEST_ID })).status).toBe('failed');
    expect(await s.requests.find({ eventId: 5, requestId: REQUEST_ID })).toMatchObject({
      status: 'failed',
      error: 'The clip job could not be queued',
    });
    expect(s.redis.statuses()).toEqual(['failed']);
  });

  it("gives the subscription a request's status now, guarded like it; an unknown or malformed request_id is 404", async () => {
    const s = setup();
    s.index.hits = [{ ref: `${s.indexed.id}@2`, distance: 0.2 }];
    await start(s, { selfie, requestId: REQUEST_ID });
    const current = await s.service.currentStatus(apiKeyPrincipal(1), 1, 5, REQUEST_ID.toUpperCase());
    expect(current).toMatchObject({ requestId: REQUEST_ID, eventId: 5, status: 'processing', error: null });
    expect(new Date(current.at).toISOString()).toBe(current.at);
    await expect(s.service.currentStatus(apiKeyPrincipal(2), 1, 5, REQUEST_ID)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const unknown = s.service.currentStatus(apiKeyPrincipal(1), 1, 5, '0b7e1c52-4a36-4d0e-9b59-000000000000');
    await expect(unknown).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.service.currentStatus(apiKeyPrincipal(1), 1, 5, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads a completed request with its clips: links while ready, none once expired; unknown request_id is 404', async () => {
    const s = setup();
    await start(s, { selfie, requestId: REQUEST_ID });
    const row = (await s.requests.find({ eventId: 5, requestId: REQUEST_ID }))!;
    row.status = 'completed';
    await s.requests.addClip({
      id: 'c1',
      eventId: 5,
      requestId: REQUEST_ID,
      videoId: s.indexed.id,
      startSeconds: 61,
      endSeconds: 70,
      storageKey: 'public/5/clips/c1.mp4',
      expiresAt: null,
    });
    await s.requests.addClip({
      id: 'c2',
      eventId: 5,
      requestId: REQUEST_ID,
      videoId: s.indexed.id,
      startSeconds: 90,
      endSeconds: 95,
      storageKey: 'public/5/clips/c2.mp4',
      expiresAt: new Date(Date.now() - 1000),
    });
    const result = await s.service.read(apiKeyPrincipal(1), 1, 5, REQUEST_ID);
    expect(result.videos).toEqual([
      expect.objectContaining({
        uuid: 'c1',
        sourceVideoKey: 'finish',
        startTime: '00:01:01',
        downloadStatus: 'ready',
        videoUrl: 'https://media.test/public/5/clips/c1.mp4',
        downloadUrl: expect.stringContaining('finish-000101.mp4'),
      }),
      expect.objectContaining({ uuid: 'c2', downloadStatus: 'expired', videoUrl: null, downloadUrl: null }),
    ]);
    await expect(
      s.service.read(apiKeyPrincipal(1), 1, 5, '0b7e1c52-4a36-4d0e-9b59-000000000000'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
