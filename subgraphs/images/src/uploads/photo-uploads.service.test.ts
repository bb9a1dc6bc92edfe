import { ContentVersions } from '@em/core';
import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryPhotosRepository,
  RecordingJobProducer,
} from '@em/core/testing';
import sharp from 'sharp';
import { PipelineService } from '../pipeline/pipeline.service';
import { PhotoUploadsService } from './photo-uploads.service';

const MiB = 1024 * 1024;
const limits = { maxFileBytes: 50 * MiB, multipartThresholdBytes: 16 * MiB, partBytes: 8 * MiB, urlTtlSeconds: 900 };

const jpeg = (r: number) =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r, g: 10, b: 10 } } })
    .jpeg()
    .toBuffer();

function setup(uploadLimits = limits) {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1 });
  events.add({ id: 9, orgId: 2 });
  const photos = new InMemoryPhotosRepository(events);
  const store = new InMemoryObjectStore();
  const jobs = new RecordingJobProducer();
  const pipeline = new PipelineService(events, photos, store.asStore, jobs, new ContentVersions(events, null));
  const service = new PhotoUploadsService(events, photos, store.asStore, pipeline, uploadLimits);
  return { photos, store, jobs, service };
}

const me = apiKeyPrincipal(1);
const other = apiKeyPrincipal(2);
const declared = (size: number, contentType = 'image/jpeg') => ({ fileName: 'IMG_1.jpg', size, contentType });

describe('PhotoUploadsService', () => {
  it('names the object itself under uploads/<event>/ and signs one PUT bound to the length and type', async () => {
    const { service } = setup();
    const started = await service.start(me, 1, 5, { ...declared(1000), fileName: '../../originals/5/x.jpg' });
    expect(started.key).toMatch(/^uploads\/5\/[0-9a-f-]{36}\.jpg$/);
    expect(started.url).toBe(`https://s3.test/${started.key}?length=1000&type=image%2Fjpeg&expires=900`);
    expect(started.multipartUploadId).toBeNull();
    expect(started.expiresAt.getTime()).toBeGreaterThan(Date.now() + 890_000);
  });

  it('refuses what the import refuses: a type that is not a photo, a size over the limit, a foreign event', async () => {
    const { service } = setup();
    await expect(service.start(me, 1, 5, declared(1000, 'text/plain'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    await expect(service.start(me, 1, 5, declared(limits.maxFileBytes + 1))).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    await expect(service.start(me, 1, 5, declared(0))).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.start(me, 1, 5, { ...declared(10), fileName: 'a\nb.jpg' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await expect(service.start(other, 2, 5, declared(1000))).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('completes once: the photo is imported under the id the key names and queued; again gives the same photo', async () => {
    const { service, store, photos, jobs } = setup();
    const started = await service.start(me, 1, 5, declared(1000));
    await store.put(started.key, await jpeg(100), 'image/jpeg');
    const first = await service.complete(me, 1, 5, started.key, 'IMG_1.jpg', null);
    expect(first.status).toBe('imported');
    expect(started.key).toContain(first.imageId);
    expect(photos.rows.get(first.imageId)).toMatchObject({ status: 'queued', originalFileName: 'IMG_1.jpg' });
    expect(jobs.queued.filter((j) => j.name === 'photos')).toHaveLength(1);
    expect(store.objects.has(started.key)).toBe(false);
    expect(await service.complete(me, 1, 5, started.key, 'IMG_1.jpg', null)).toEqual(first);
    expect(photos.rows.size).toBe(1);
    expect(jobs.queued.filter((j) => j.name === 'photos')).toHaveLength(1);
  });

  it('deletes and refuses an object that is not a photo, with the reason', async () => {
    const { service, store, photos } = setup();
    const started = await service.start(me, 1, 5, declared(12));
    await store.put(started.key, Buffer.from('hello world!'), 'image/jpeg');
    await expect(service.complete(me, 1, 5, started.key, 'fake.jpg', null)).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'fake.jpg is not a photo we can read: not an image, or a corrupt one',
    });
    expect(store.objects.has(started.key)).toBe(false);
    expect(photos.rows.size).toBe(0);
  });

  it('refuses keys it did not name, of another event, or escaping the prefix; another org cannot complete', async () => {
    const { service, store } = setup();
    const started = await service.start(me, 1, 5, declared(1000));
    await store.put(started.key, await jpeg(50), 'image/jpeg');
    for (const key of [
      'originals/5/x.jpg',
      started.key.replace('uploads/5/', 'uploads/9/'),
      started.key.replace('uploads/5/', 'uploads/5/../5/'),
      `${started.key}/../../x`,
      started.key.replace('.jpg', '.txt'),
    ])
      await expect(service.complete(me, 1, 5, key, 'a.jpg', null)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.complete(other, 2, 9, started.key, 'a.jpg', null)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(service.complete(other, 2, 5, started.key, 'a.jpg', null)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(store.objects.has(started.key)).toBe(true);
  });

  it('a large file goes in parts; a resume lists the stored parts and signs only the missing ones', async () => {
    const { service, store } = setup();
    const size = 20 * MiB;
    const started = await service.start(me, 1, 5, declared(size));
    expect(started.url).toBeNull();
    expect(started.parts.map((p) => [p.partNumber, p.size])).toEqual([
      [1, 8 * MiB],
      [2, 8 * MiB],
      [3, 4 * MiB],
    ]);
    const id = started.multipartUploadId!;
    store.putPart(id, 1, Buffer.alloc(8 * MiB));
    store.putPart(id, 2, Buffer.alloc(100)); // cut by a dropped connection: not the size it must have
    const resumed = await service.parts(me, 1, 5, started.key, id, size);
    expect(resumed.uploaded).toEqual([{ partNumber: 1, size: 8 * MiB }]);
    expect(resumed.missing.map((p) => p.partNumber)).toEqual([2, 3]);
    await expect(service.parts(other, 2, 9, started.key, id, size)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.parts(me, 1, 5, started.key, 'nope', size)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('completes a multipart upload by joining its parts, then imports it', async () => {
    const { service, store, photos } = setup({ ...limits, multipartThresholdBytes: 10, partBytes: 100 });
    const photo = await jpeg(30);
    const started = await service.start(me, 1, 5, declared(photo.length));
    for (const p of started.parts) {
      const from = (p.partNumber - 1) * 100;
      store.putPart(started.multipartUploadId!, p.partNumber, photo.subarray(from, from + p.size));
    }
    const done = await service.complete(me, 1, 5, started.key, 'IMG_1.jpg', started.multipartUploadId);
    expect(done.status).toBe('imported');
    expect(photos.rows.get(done.imageId)?.fileSize).toBe(photo.length);
    // Completed: the upload is gone, and completing again still answers the photo.
    expect(await service.complete(me, 1, 5, started.key, 'IMG_1.jpg', started.multipartUploadId)).toEqual(done);
  });

  it('abort removes the parts and the object', async () => {
    const { service, store } = setup();
    const started = await service.start(me, 1, 5, declared(20 * MiB));
    store.putPart(started.multipartUploadId!, 1, Buffer.alloc(10));
    await service.abort(me, 1, 5, started.key, started.multipartUploadId);
    expect(store.multipart.size).toBe(0);
    expect(store.deleted).toContain(started.key);
  });
});
