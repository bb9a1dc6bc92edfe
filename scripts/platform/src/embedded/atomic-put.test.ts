import { ObjectStore } from '@em/core/storage';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { embeddedS3ForTests } from './embedded-s3-for-tests';

let s3: Awaited<ReturnType<typeof embeddedS3ForTests>>;
let store: ObjectStore;

beforeAll(async () => {
  s3 = await embeddedS3ForTests('atomic');
  store = s3.store;
});

afterAll(() => s3?.stop());

/** A presigned PUT sent in two halves with a pause between: `midway` runs while the store holds half of it. */
async function putInHalves(key: string, body: Buffer, midway: () => Promise<void>): Promise<number> {
  const url = new URL(await store.presignedPut(key, body.length, 'image/jpeg', 60));
  const answered = new Promise<number>((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'PUT', headers: { 'content-type': 'image/jpeg', 'content-length': body.length } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, body.length / 2));
    void new Promise((r) => setTimeout(r, 500)).then(midway).then(
      () => req.end(body.subarray(body.length / 2)),
      (err: unknown) => {
        req.destroy();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
  return answered;
}

// A CI run lost a dashboard upload: the store answered the PUT before its file was whole, and the API read it truncated.
describe('a PUT to the embedded S3', () => {
  it('is invisible until whole: a new object does not exist while it is received, and is whole once answered', async () => {
    const body = randomBytes(4 * 1024 * 1024);
    const status = await putInHalves('uploads/1/new.jpg', body, async () => {
      expect(await store.size('uploads/1/new.jpg')).toBeNull();
    });
    expect(status).toBe(200);
    expect(await store.size('uploads/1/new.jpg')).toBe(body.length);
    expect((await store.getBuffer('uploads/1/new.jpg')).equals(body)).toBe(true);
  });

  it('replaces an object at once: readers see the former bytes until the new ones are whole', async () => {
    const former = randomBytes(3 * 1024 * 1024);
    await store.put('photos/1/a.jpg', former, 'image/jpeg');
    const body = randomBytes(4 * 1024 * 1024);
    const status = await putInHalves('photos/1/a.jpg', body, async () => {
      expect((await store.getBuffer('photos/1/a.jpg')).equals(former)).toBe(true);
    });
    expect(status).toBe(200);
    expect((await store.getBuffer('photos/1/a.jpg')).equals(body)).toBe(true);
  });

  it('leaves nothing behind when the client goes away mid-body', async () => {
    const body = randomBytes(2 * 1024 * 1024);
    await expect(
      putInHalves('uploads/1/gone.jpg', body, () => Promise.reject(new Error('the client went away'))),
    ).rejects.toThrow('the client went away');
    await new Promise((r) => setTimeout(r, 300));
    expect(await store.size('uploads/1/gone.jpg')).toBeNull();
    expect((await store.list('uploads/1/')).map((o) => o.key)).toEqual(['uploads/1/new.jpg']);
  });
  it('stores PUTs into a folder whose last object is deleted meanwhile, and deletes it: every answer a success', async () => {
    const small = randomBytes(64 * 1024);
    // As a browser sends it: one presigned PUT, no retry on a 500 (the SDK would hide one).
    const browserPut = async (key: string) => {
      const url = await store.presignedPut(key, small.length, 'image/jpeg', 60);
      return (await fetch(url, { method: 'PUT', body: small, headers: { 'content-type': 'image/jpeg' } })).status;
    };
    const statuses: number[] = [];
    for (let round = 0; round < 40; round++) {
      await store.put(`race/${round}/a.jpg`, small, 'image/jpeg');
      // The delete empties the folder (s3rver removes an empty one) while the PUTs create their files in it.
      const [, ...puts] = await Promise.all([
        store.delete(`race/${round}/a.jpg`),
        browserPut(`race/${round}/b.jpg`),
        browserPut(`race/${round}/c.jpg`),
      ]);
      statuses.push(...puts);
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const stored = await store.list('race/');
    expect(stored).toHaveLength(80);
    expect(stored.every((o) => o.size === small.length)).toBe(true);
  });
});

describe('a restart of the embedded S3', () => {
  it('removes what a PUT killed mid-body left, and keeps every object, one named like it included', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'em-s3-restart-'));
    try {
      const first = await embeddedS3ForTests('restart-1', { dataDir });
      await first.store.put('photos/1/a.jpg', Buffer.from('whole'), 'image/jpeg');
      await first.store.put('photos/1/b.jpg.1234567890ab.partial', Buffer.from('an object'), 'image/jpeg');
      await first.stop();
      // What a process killed mid-PUT leaves beside the object it was replacing.
      const objectFile = path.join(dataDir, 's3', 'b', 'photos', '1', 'a.jpg._S3rver_object');
      const leftOver = `${objectFile}.0123456789ab.partial`;
      writeFileSync(leftOver, 'half of a photo');

      const second = await embeddedS3ForTests('restart-2', { dataDir });
      try {
        expect(await second.unfinishedPutsRemoved).toBe(1);
        expect(existsSync(leftOver)).toBe(false);
        expect(readdirSync(path.dirname(objectFile)).filter((f) => f.endsWith('.partial'))).toEqual([]);
        expect((await second.store.getBuffer('photos/1/a.jpg')).toString()).toBe('whole');
        expect((await second.store.list('photos/1/')).map((o) => o.key).sort()).toEqual([
          'photos/1/a.jpg',
          'photos/1/b.jpg.1234567890ab.partial',
        ]);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
