import sharp from 'sharp';
import { randomUUID } from 'node:crypto';
import {
  accessToken,
  account,
  api,
  closeDb,
  expectError,
  expectSuccess,
  fixtures,
  runCli,
  store,
  waitForPipeline,
} from './support/platform';

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A real JPEG with a camera time (no offset: read in the event's zone, UTC here). */
async function photo(seed: number, dateTimeOriginal?: string): Promise<Buffer> {
  let img = sharp({
    create: { width: 1200 + seed, height: 800, channels: 3, background: { r: (seed * 37) % 255, g: 90, b: 160 } },
  });
  if (dateTimeOriginal)
    img = img.withExif({ IFD0: { Artist: 'Jane Lens' }, IFD2: { DateTimeOriginal: dateTimeOriginal } });
  return img.jpeg().toBuffer();
}

describe('photo pipeline: import, process, go-live, status', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let base: string;
  let inbox: string;

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId);
    base = `/${orgId}/event/${eventId}`;
    inbox = `inbox/${eventId}/`;
  });
  afterAll(closeDb);

  it('starts empty and not live', async () => {
    expect(expectSuccess(await api(`${base}/pipeline/photos/status`, { key }))).toEqual({
      is_live: false,
      went_live_at: null,
      total: 0,
      imported: 0,
      queued: 0,
      processing: 0,
      processed: 0,
      failed: 0,
      live: 0,
      progress: 1,
      failures: [],
      last_imported_at: null,
      last_processed_at: null,
    });
  });

  it('imports the inbox: photos in, duplicates recognised, bad files refused with a reason and kept', async () => {
    const first = await photo(1, '2026:05:17 09:15:00');
    await store.put(`${inbox}finish-line/IMG_0001.JPG`, first, 'image/jpeg');
    await store.put(`${inbox}IMG_0002.jpg`, await photo(2, '2026:05:17 08:05:30'), 'image/jpeg');
    await store.put(`${inbox}copy-of-0001.jpg`, first, 'image/jpeg');
    await store.put(`${inbox}broken.jpg`, Buffer.concat([first.subarray(0, 400)]), 'image/jpeg');
    await store.put(`${inbox}notes.txt`, Buffer.from('not a photo'), 'text/plain');
    const report = expectSuccess(await api(`${base}/pipeline/photos/import`, { key, method: 'POST' }));
    expect({ imported: report.imported, duplicates: report.duplicates, rejected: report.rejected }).toEqual({
      imported: 2,
      duplicates: 1,
      rejected: 2,
    });
    const byKey = Object.fromEntries(report.files.map((f: any) => [f.key.slice(inbox.length), f]));
    // The same content under two names: whichever comes first is imported, the other is its duplicate.
    const pair = [byKey['copy-of-0001.jpg'], byKey['finish-line/IMG_0001.JPG']];
    expect(pair.map((f) => f.status).sort()).toEqual(['duplicate', 'imported']);
    expect(pair[0].image_id).toEqual(pair[1].image_id);
    expect(pair[0].reason).toBeNull();
    expect(byKey['IMG_0002.jpg']).toMatchObject({ status: 'imported', image_id: expect.any(String), reason: null });
    expect(byKey['broken.jpg']).toMatchObject({
      status: 'rejected',
      image_id: null,
      reason: expect.stringMatching(/corrupt|truncated|not an image/),
    });
    expect(byKey['notes.txt']).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/not an image/) });
    expect((await store.list(inbox)).map((o) => o.key).sort()).toEqual([`${inbox}broken.jpg`, `${inbox}notes.txt`]);

    // A second import of the same content is a duplicate, not a new photo.
    await store.put(`${inbox}again.jpg`, first, 'image/jpeg');
    const again = expectSuccess(
      await api(`${base}/pipeline/photos/import`, { key, ...json({ keys: [`${inbox}again.jpg`] }) }),
    );
    expect(again).toMatchObject({ imported: 0, duplicates: 1, rejected: 0 });
    const status = expectSuccess(await api(`${base}/pipeline/photos/status`, { key }));
    expect(status).toMatchObject({ total: 2, imported: 2, is_live: false, progress: 0 });
    expect(status.last_imported_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it('processes every imported photo once, then go-live publishes them', async () => {
    expect(expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }))).toEqual({ queued: 2 });
    const done = await waitForPipeline(base, key);
    expect(done).toMatchObject({ total: 2, processed: 2, failed: 0, live: 0, progress: 1, is_live: false });
    expect(expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }))).toEqual({ queued: 0 });
    expect(expectSuccess(await api(`${base}/images`, { key })).images).toEqual([]);

    const live = expectSuccess(await api(`${base}/pipeline/photos/go-live`, { key, method: 'POST' }));
    expect(live).toMatchObject({
      published: 2,
      is_live: true,
      went_live_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
    const gallery = expectSuccess(await api(`${base}/images`, { key }));
    expect(
      gallery.images.map((i: any) => [i.meta_info.photo_timestamp, i.meta_info.photographer_name, i.meta_info.source]),
    ).toEqual([
      [Date.parse('2026-05-17T08:05:30Z') / 1000, 'Jane Lens', 'inbox'],
      [Date.parse('2026-05-17T09:15:00Z') / 1000, 'Jane Lens', 'inbox'],
    ]);
    expect(gallery.images[0].meta_info.original_file_name).toBe('IMG_0002.jpg');
    expect(gallery.images[1].meta_info.original_file_name).toMatch(/^(copy-of-0001\.jpg|IMG_0001\.JPG)$/);
    const preview = await fetch(gallery.images[0].img_url);
    expect(preview.status).toBe(200);
    expect(gallery.images[0].width).toBe(1202);
    expect(expectSuccess(await api(`${base}/pipeline/photos/status`, { key }))).toMatchObject({
      is_live: true,
      live: 2,
    });
  });

  it('photos added after go-live are published as soon as they are processed', async () => {
    await store.put(`${inbox}late.jpg`, await photo(3, '2026:05:17 11:00:00'), 'image/jpeg');
    expect(
      expectSuccess(await api(`${base}/pipeline/photos/import`, { key, ...json({ keys: [`${inbox}late.jpg`] }) })),
    ).toMatchObject({ imported: 1 });
    expect(
      expectSuccess(await api(`${base}/pipeline/photos/process`, { key, ...json({ retry_failed: true }) })),
    ).toEqual({ queued: 1 });
    const done = await waitForPipeline(base, key);
    expect(done).toMatchObject({ total: 3, processed: 3, live: 3, is_live: true });
    expect(expectSuccess(await api(`${base}/images`, { key })).pagination.total).toBe(3);
  });

  it('refuses bad requests with 400 and strangers with 403', async () => {
    expectError(await api(`${base}/pipeline/photos/import`, { key, ...json({ keys: ['inbox/999999/x.jpg'] }) }), 400);
    expectError(
      await api(`${base}/pipeline/photos/import`, { key, ...json({ keys: [`${inbox}../../originals/x.jpg`] }) }),
      400,
    );
    expectError(await api(`${base}/pipeline/photos/import`, { key, ...json({ keys: 'x' }) }), 400);
    expectError(await api(`${base}/pipeline/photos/import`, { key, ...json([1, 2]) }), 400);
    expectError(await api(`${base}/pipeline/photos/process`, { key, ...json({ retry_failed: 'yes' }) }), 400);
    const stranger = await fixtures.organisation();
    expectError(await api(`${base}/pipeline/photos/status`, { key: stranger.key }), 403);
    expectError(await api(`${base}/pipeline/photos/go-live`, { key: stranger.key, method: 'POST' }), 403);
    expectError(await api(`${base}/pipeline/photos/status`, { key: null }), 401);
    const email = `reader-${randomUUID()}@example.org`;
    await account(email, [[orgId, 'admin']]);
    const subject = `s-${randomUUID()}`;
    const readOnly = await accessToken({ subject, email, scopes: ['events:read'] });
    expectError(
      await api(`${base}/pipeline/photos/process`, {
        key: null,
        method: 'POST',
        headers: { authorization: `Bearer ${readOnly}` },
      }),
      403,
    );
    const writer = await accessToken({ subject, email, scopes: ['events:read', 'events:write'] });
    expect(
      (await api(`${base}/pipeline/photos/status`, { key: null, headers: { authorization: `Bearer ${writer}` } }))
        .status,
    ).toBe(200);
  });
});

describe('organiser CLI: import-photos', () => {
  afterAll(closeDb);

  it('imports a folder, processes it and publishes it, reporting refused files', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-import-'));
    mkdirSync(path.join(dir, 'stage-2'));
    writeFileSync(path.join(dir, 'a.jpg'), await photo(10, '2026:05:17 10:00:00'));
    writeFileSync(
      path.join(dir, 'stage-2', 'b.png'),
      await sharp({ create: { width: 640, height: 480, channels: 3, background: '#345' } })
        .png()
        .toBuffer(),
    );
    writeFileSync(path.join(dir, 'c.jpg'), Buffer.from('not really a jpeg'));
    const output = await runCli('import-photos', '--event', String(eventId), '--dir', dir, '--photographer', 'CLI Cam');
    rmSync(dir, { recursive: true, force: true });
    expect(output).toContain('3/3 (2 new, 0 duplicates, 1 refused)');
    expect(output).toMatch(/refused c\.jpg: .+/);
    expect(output).toContain('go-live: 2 photos published');
    const gallery = expectSuccess(await api(`/${orgId}/event/${eventId}/images`, { key }));
    expect(
      gallery.images.map((i: any) => [
        i.meta_info.original_file_name,
        i.meta_info.photographer_name,
        i.meta_info.source,
      ]),
    ).toEqual([
      ['a.jpg', 'CLI Cam', 'cli'],
      ['b.png', 'CLI Cam', 'cli'],
    ]);
  });
});

describe('photo import by multipart upload (REST -> gateway -> images subgraph)', () => {
  afterAll(closeDb);

  async function upload(
    base: string,
    key: string,
    files: Array<{ name: string; content: Buffer; type?: string; field?: string }>,
    fields: Record<string, string> = {},
  ) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const f of files)
      form.append(f.field ?? 'files', new Blob([new Uint8Array(f.content)], { type: f.type ?? 'image/jpeg' }), f.name);
    const { API } = await import('./support/platform');
    const res = await fetch(`${API}${base}/pipeline/photos/import`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  it('imports uploaded files with per-file outcomes, then processes and publishes them', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const base = `/${orgId}/event/${eventId}`;
    const one = await photo(21, '2026:05:17 12:00:00');
    const res = await upload(
      base,
      key,
      [
        { name: 'one.jpg', content: one },
        {
          name: 'two.png',
          content: await sharp({ create: { width: 300, height: 200, channels: 3, background: '#a33' } })
            .png()
            .toBuffer(),
          type: 'image/png',
        },
        { name: 'one-again.jpg', content: one },
        { name: 'empty.jpg', content: Buffer.alloc(0) },
        { name: 'script.jpg', content: Buffer.from('#!/bin/sh\necho hi\n') },
      ],
      { photographer_name: 'Upload Cam' },
    );
    const data = expectSuccess(res);
    expect({ imported: data.imported, duplicates: data.duplicates, rejected: data.rejected }).toEqual({
      imported: 2,
      duplicates: 1,
      rejected: 2,
    });
    expect(data.files.map((f: any) => [f.key, f.status])).toEqual([
      ['one.jpg', 'imported'],
      ['two.png', 'imported'],
      ['one-again.jpg', 'duplicate'],
      ['empty.jpg', 'rejected'],
      ['script.jpg', 'rejected'],
    ]);
    expect(data.files[3].reason).toBe('empty file');
    expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
    await waitForPipeline(base, key);
    expectSuccess(await api(`${base}/pipeline/photos/go-live`, { key, method: 'POST' }));
    const gallery = expectSuccess(await api(`${base}/images`, { key }));
    expect(
      gallery.images.map((i: any) => [
        i.meta_info.original_file_name,
        i.meta_info.photographer_name,
        i.meta_info.source,
      ]),
    ).toEqual([
      ['one.jpg', 'Upload Cam', 'upload'],
      ['two.png', 'Upload Cam', 'upload'],
    ]);
  });

  it('refuses files in an unexpected field (400) and uploads by strangers (403)', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const base = `/${orgId}/event/${eventId}`;
    const bad = await upload(base, key, [{ name: 'x.jpg', content: await photo(5), field: 'picture' }]);
    expect({ status: bad.status, responseType: bad.body.responseType, data: bad.body.data }).toEqual({
      status: 400,
      responseType: 'error',
      data: null,
    });
    const stranger = await fixtures.organisation();
    const denied = await upload(base, stranger.key, [{ name: 'x.jpg', content: await photo(6) }]);
    expect({ status: denied.status, data: denied.body.data }).toEqual({ status: 403, data: null });
  });
});
