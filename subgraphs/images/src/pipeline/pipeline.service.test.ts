import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
  RecordingJobProducer,
} from '@em/core/testing';
import sharp from 'sharp';
import { PipelineService } from './pipeline.service';
import { ContentVersions, newId } from '@em/core';

const jpeg = (r: number) =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r, g: 10, b: 10 } } })
    .jpeg()
    .toBuffer();

function setup() {
  const events = new InMemoryEventsRepository();
  const event = events.add({ id: 5, orgId: 1 });
  const photos = new InMemoryPhotosRepository(events);
  const store = new InMemoryObjectStore();
  const jobs = new RecordingJobProducer();
  const announced: unknown[] = [];
  const service = new PipelineService(
    events,
    photos,
    store.asStore,
    jobs,
    new ContentVersions(events, null),
    async (transition) => void announced.push(transition),
  );
  return { events, event, photos, store, jobs, service, announced };
}

const me = apiKeyPrincipal(1);

describe('PipelineService', () => {
  it('imports a photo once: the original is stored under its key, the same content again is a duplicate of it', async () => {
    const { event, photos, store, service } = setup();
    const file = await jpeg(200);
    const first = await service.importFile(event, file, {
      fileName: 'dir/IMG_1.jpg',
      source: 'upload',
      photographerName: 'Ann',
    });
    expect(first.status).toBe('imported');
    const id = (first as { imageId: string }).imageId;
    const row = photos.rows.get(id)!;
    expect(row).toMatchObject({
      status: 'imported',
      originalFileName: 'IMG_1.jpg',
      width: 32,
      height: 24,
      photographerName: 'Ann',
      originalKey: `originals/5/${id}.jpg`,
    });
    expect(store.objects.has(row.originalKey)).toBe(true);
    expect(await service.importFile(event, file, { fileName: 'again.jpg', source: 'upload' })).toEqual({
      status: 'duplicate',
      imageId: id,
    });
    expect(photos.rows.size).toBe(1);
  });

  it('rejects a file that is not a photo, with the reason, and stores nothing', async () => {
    const { event, photos, store, service } = setup();
    const outcome = await service.importFile(event, Buffer.from('not an image'), {
      fileName: 'notes.txt',
      source: 'upload',
    });
    expect(outcome).toMatchObject({ status: 'rejected', reason: expect.any(String) });
    expect(photos.rows.size).toBe(0);
    expect(store.objects.size).toBe(0);
  });

  it('imports the inbox: imported and duplicate files leave it, rejected ones stay; keys outside the inbox are 400', async () => {
    const { store, service } = setup();
    await store.put('inbox/5/a.jpg', await jpeg(1), 'image/jpeg');
    await store.put('inbox/5/b.jpg', await jpeg(1), 'image/jpeg');
    await store.put('inbox/5/c.txt', Buffer.from('text'), 'text/plain');
    const report = await service.importInbox(me, 1, 5);
    expect(report).toMatchObject({ imported: 1, duplicates: 1, rejected: 1 });
    expect((await store.list('inbox/5/')).map((o) => o.key)).toEqual(['inbox/5/c.txt']);
    await expect(service.importInbox(me, 1, 5, ['inbox/6/x.jpg'])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.importInbox(me, 1, 5, ['inbox/5/../6/x.jpg'])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    // Encoded dot segments reach the store decoded: refused here, not failed there (a 500).
    for (const key of ['inbox/5/%2e%2e/6/x.jpg', 'inbox/5/%252E%252E/x.jpg', 'inbox/5//x.jpg', 'inbox/5/a%5cb.jpg']) {
      await expect(service.importInbox(me, 1, 5, [key])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
    expect((await service.importInbox(me, 1, 5, ['inbox/5/gone.jpg'])).files).toEqual([
      { key: 'inbox/5/gone.jpg', outcome: { status: 'rejected', reason: 'no such file in the inbox' } },
    ]);
  });

  it('process queues imported (and still queued) photos with a job each; failed ones only on retry, their errors cleared', async () => {
    const { photos, jobs, service } = setup();
    photos.add({ id: 'i', eventId: 5, status: 'imported' });
    photos.add({ id: 'q', eventId: 5, status: 'queued' });
    photos.add({ id: 'f', eventId: 5, status: 'failed', stepErrors: { previews: 'broken' } });
    photos.add({ id: 'p', eventId: 5, status: 'processed' });
    expect(await service.process(me, 1, 5)).toEqual({ queued: 2 });
    expect(
      jobs
        .of('photos')
        .map((j) => j.photoId)
        .sort(),
    ).toEqual(['i', 'q']);
    expect(photos.rows.get('f')!.status).toBe('failed');
    expect(await service.process(me, 1, 5, true)).toEqual({ queued: 3 });
    expect(photos.rows.get('f')).toMatchObject({ status: 'queued', stepErrors: null });
    expect(photos.rows.get('p')!.status).toBe('processed');
  });

  it("failedPhotos names the event's failed photos with their reasons, no other event's", async () => {
    const { events, photos, service } = setup();
    events.add({ id: 6, orgId: 1 });
    photos.add({
      id: 'f',
      eventId: 5,
      status: 'failed',
      originalFileName: 'a.jpg',
      stepErrors: { previews: 'corrupt' },
    });
    photos.add({ id: 'g', eventId: 6, status: 'failed', stepErrors: { previews: 'corrupt' } });
    photos.add({ id: 'p', eventId: 5, status: 'processed' });
    expect(await service.failedPhotos(5)).toEqual([{ imageId: 'f', fileName: 'a.jpg', reason: 'corrupt' }]);
  });

  it('retryPhoto queues one failed photo alone and announces it; another state is 409, another event 404', async () => {
    const { photos, jobs, announced, service } = setup();
    const other = newId();
    const [failed, sibling, done] = [newId(), newId(), newId()];
    photos.add({ id: failed, eventId: 5, status: 'failed', stepErrors: { previews: 'broken' } });
    photos.add({ id: sibling, eventId: 5, status: 'failed', stepErrors: { previews: 'broken' } });
    photos.add({ id: done, eventId: 5, status: 'processed' });
    expect(await service.retryPhoto(me, 1, 5, failed.toUpperCase())).toEqual({ queued: 1 });
    expect(jobs.of('photos').map((j) => j.photoId)).toEqual([failed]);
    expect(announced).toEqual([{ eventId: 5, photoId: failed, status: 'queued', reason: null }]);
    expect(photos.rows.get(failed)).toMatchObject({ status: 'queued', stepErrors: null });
    expect(photos.rows.get(sibling)!.status).toBe('failed');
    await expect(service.retryPhoto(me, 1, 5, failed)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Only a failed photo can be retried: this one is queued',
    });
    await expect(service.retryPhoto(me, 1, 5, done)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(service.retryPhoto(me, 1, 5, other)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.retryPhoto(me, 1, 5, 'not-a-uuid')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.retryPhoto({ ...me, readOnly: true }, 1, 5, sibling)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(service.retryPhoto(me, 2, 5, sibling)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(jobs.of('photos')).toHaveLength(1);
  });

  it('queueImported queues only the given photos that are still imported (an import that processes as it goes)', async () => {
    const { photos, jobs, service } = setup();
    photos.add({ id: 'a', eventId: 5, status: 'imported' });
    photos.add({ id: 'b', eventId: 5, status: 'imported' });
    photos.add({ id: 'p', eventId: 5, status: 'processing' });
    expect(await service.queueImported(5, ['a', 'p', 'unknown'])).toBe(1);
    expect(jobs.of('photos').map((j) => j.photoId)).toEqual(['a']);
    expect([photos.rows.get('a')!.status, photos.rows.get('b')!.status, photos.rows.get('p')!.status]).toEqual([
      'queued',
      'imported',
      'processing',
    ]);
    // Another event's photo is never queued through this one.
    photos.add({ id: 'x', eventId: 6, status: 'imported' });
    expect(await service.queueImported(5, ['x'])).toBe(0);
  });

  it('go-live publishes every processed photo and keeps the first go-live time', async () => {
    const { photos, events, service } = setup();
    photos.add({ id: 'p1', eventId: 5, status: 'processed' });
    photos.add({ id: 'p2', eventId: 5, status: 'failed' });
    const first = await service.goLive(me, 1, 5);
    expect(first.published).toBe(1);
    expect(photos.rows.get('p1')!.publishedAt).toEqual(first.wentLiveAt);
    expect(photos.rows.get('p2')!.publishedAt).toBeFalsy();
    // What participants read changed: the event's content version moved (ETags and shared reads follow it).
    expect(events.contentVersions.get(5)).toBe(2);
    photos.add({ id: 'p3', eventId: 5, status: 'processed' });
    const second = await service.goLive(me, 1, 5);
    expect(second.published).toBe(1);
    expect(second.wentLiveAt).toEqual(first.wentLiveAt);
    expect(events.rows.get(5)!.wentLiveAt).toEqual(first.wentLiveAt);
    expect(events.contentVersions.get(5)).toBe(3);
  });

  it('status: counts per state, progress over processed and failed, failure reasons, live count', async () => {
    const { photos, service } = setup();
    photos.add({ eventId: 5, status: 'imported' });
    photos.add({ eventId: 5, status: 'processed', publishedAt: new Date() });
    photos.add({ eventId: 5, status: 'failed', stepErrors: { previews: 'unreadable' } });
    photos.add({ eventId: 5, status: 'failed', stepErrors: { previews: 'unreadable' } });
    const status = await service.status(me, 1, 5);
    expect(status).toMatchObject({
      isLive: false,
      total: 4,
      imported: 1,
      processed: 1,
      failed: 2,
      live: 1,
      progress: 0.75,
      failures: [{ reason: 'unreadable', count: 2 }],
    });
    expect(status.failedPhotos).toHaveLength(2);
    expect(status.failedPhotos[0]).toEqual({
      imageId: expect.any(String),
      fileName: expect.any(String),
      reason: 'unreadable',
    });
    expect((await setup().service.status(me, 1, 5)).progress).toBe(1);
  });

  it('the pipeline writes need write access: an account token without events:write is 403', async () => {
    const { service } = setup();
    const reader = {
      kind: 'account' as const,
      orgId: null,
      accountId: 1,
      orgRoles: { 1: 'user' as const },
      scopes: ['events:read'],
    };
    await expect(service.process(reader, 1, 5)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.goLive(reader, 1, 5)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
