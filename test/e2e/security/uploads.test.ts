import { jobIdOf, JobQueues } from '@em/core/jobs';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { servicePid } from '../support/spawn-platform';
import { api, cfg, closeDb, expectError, expectSuccess, fixtures, info } from '../support/platform';
import { filePartHead, MB, StreamedAnswer, streamMultipart, zeroes } from '../support/multipart-stream';

const ports: Record<string, number> = JSON.parse(process.env.E2E_PORTS!);
const rest = new URL(info.restUrl);
const BOUNDARY = 'sec-upload-boundary';

function adapterPid(): number {
  const pid = servicePid(path.dirname(process.env.E2E_PLATFORM_INFO!), 'rest-adapter/dist/main');
  if (!pid) throw new Error('the REST adapter process was not found');
  return pid;
}

/** VmHWM (the peak resident set) of a process, in bytes. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/**
 * A multipart upload of `files` files of `fileBytes` zero bytes each, streamed (never built in
 * memory) with chunked encoding; it stops writing the moment the answer arrives. `stallAfterHead`
 * sends the first part's head and then nothing more, so that any answer comes before the body.
 */
function streamUpload(
  urlPath: string,
  opts: { key?: string; files: number; fileBytes: number; stallAfterHead?: boolean; field?: string },
): Promise<StreamedAnswer> {
  function* parts() {
    for (let i = 0; i < opts.files; i++) {
      yield filePartHead(BOUNDARY, opts.field ?? 'files', `big-${i}.jpg`, 'image/jpeg');
      if (opts.stallAfterHead) return;
      yield* zeroes(opts.fileBytes);
      yield '\r\n';
    }
    yield `--${BOUNDARY}--\r\n`;
  }
  return streamMultipart({
    url: new URL(`/api/v1/ext${urlPath}`, rest),
    boundary: BOUNDARY,
    headers: opts.key ? { 'x-api-key': opts.key } : {},
    parts: parts(),
    end: !opts.stallAfterHead,
  });
}

/** What the upload tests measured, printed at the end (for the notes). */
const figures: string[] = [];
const note = (what: string, answer: StreamedAnswer, rssGrowth: number) =>
  figures.push(
    `${what}: ${answer.status} in ${answer.elapsedMs} ms after ${(answer.sentBytes / MB).toFixed(0)} MB sent, adapter peak RSS +${(rssGrowth / MB).toFixed(1)} MB`,
  );

describe('#2 the REST adapter authenticates before it reads an upload', () => {
  afterAll(async () => {
    await closeDb();
    console.log(figures.join('\n'));
  });
  const { orgId, eventId } = info.demo;
  const importPath = `/${orgId}/event/${eventId}/pipeline/photos/import`;

  it('#2 unauthenticated 200 MB upload: 401 with under 32 MB of it sent, adapter peak RSS grows < 32 MB', async () => {
    const pid = adapterPid();
    const before = peakRss(pid);
    const answer = await streamUpload(importPath, { files: 1, fileBytes: 200 * MB });
    note('unauthenticated 200 MB', answer, peakRss(pid) - before);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ responseType: 'error', data: null });
    // Bytes, not time: an adapter that does not read the body lets through only the sockets' buffers, however loaded.
    expect(answer.sentBytes).toBeLessThan(32 * MB);
    expect(peakRss(pid) - before).toBeLessThan(32 * MB);
  });

  it('#2 unauthenticated 100 files x 50 MB: 401 with under 32 MB of them sent, adapter peak RSS grows < 32 MB', async () => {
    const pid = adapterPid();
    const before = peakRss(pid);
    const answer = await streamUpload(importPath, { files: 100, fileBytes: 50 * MB });
    note('unauthenticated 100 x 50 MB', answer, peakRss(pid) - before);
    expect(answer.status).toBe(401);
    // Bytes, not time: an adapter that does not read the body lets through only the sockets' buffers, however loaded.
    expect(answer.sentBytes).toBeLessThan(32 * MB);
    expect(peakRss(pid) - before).toBeLessThan(32 * MB);
  });

  it('#2 wrong key on an upload: 403 before the body is read', async () => {
    const answer = await streamUpload(importPath, {
      key: 'em_live_0000000000000000000000000000000000',
      files: 1,
      fileBytes: 10 * MB,
      stallAfterHead: true,
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ responseType: 'error', data: null });
  });

  it('#2 a key of another organisation on an upload: 403 before the body is read', async () => {
    const other = await fixtures.organisation();
    const answer = await streamUpload(importPath, {
      key: other.key,
      files: 1,
      fileBytes: 10 * MB,
      stallAfterHead: true,
    });
    expect(answer.status).toBe(403);
  });

  it('#2 a selfie upload to an event without selfie search: 403 before the body is read', async () => {
    const { orgId: org, key } = await fixtures.organisation();
    const event = await fixtures.event(org, { selfieSearch: false });
    const answer = await streamUpload(`/${org}/event/${event}/faces`, {
      key,
      files: 1,
      fileBytes: MB,
      stallAfterHead: true,
      field: 'file',
    });
    expect(answer.status).toBe(403);
  });

  it('#2 authenticated over-limit file: 413 quickly, adapter peak RSS grows < 32 MB, the rest is not read', async () => {
    const { orgId: org, key } = await fixtures.organisation();
    const event = await fixtures.event(org);
    const pid = adapterPid();
    const before = peakRss(pid);
    const answer = await streamUpload(`/${org}/event/${event}/pipeline/photos/import`, {
      key,
      files: 1,
      fileBytes: cfg.UPLOAD_MAX_FILE_BYTES * 4,
    });
    note(
      `authenticated ${(cfg.UPLOAD_MAX_FILE_BYTES * 4) / MB} MB file (limit ${cfg.UPLOAD_MAX_FILE_BYTES / MB} MB)`,
      answer,
      peakRss(pid) - before,
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ responseType: 'error', data: null });
    expect(answer.elapsedMs).toBeLessThan(15_000);
    expect(answer.sentBytes).toBeLessThan(cfg.UPLOAD_MAX_FILE_BYTES * 3);
    expect(peakRss(pid) - before).toBeLessThan(32 * MB);
  });

  it('#2 timeline/images without a key and without from: 401 (credentials before validation)', async () => {
    expectError(await api(`/${orgId}/event/${eventId}/timeline/images`, { key: null }), 401);
  });

  it('#2 timeline/images with an invalid key and without from: 403', async () => {
    expectError(
      await api(`/${orgId}/event/${eventId}/timeline/images`, { key: 'em_live_0000000000000000000000000000000000' }),
      403,
    );
  });

  it('#2 a JSON route without a key and with a malformed body: 401, not 400', async () => {
    expectError(
      await api(`/${orgId}/event/${eventId}/original-photos`, {
        key: null,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      }),
      401,
    );
  });

  it('#2 still 422 for a valid key without from', async () => {
    expectError(await api(`/${orgId}/event/${eventId}/timeline/images`), 422);
  });
});

describe('#13 operator endpoints are not on the public REST port', () => {
  it.each(['/metrics', '/health', '/health/live', '/health/ready'])(
    '#13 %s on the REST port is a 404 in the envelope; on the operator port it answers',
    async (endpoint) => {
      const pub = await fetch(`${info.restUrl}${endpoint}`);
      expect(pub.status).toBe(404);
      expect(await pub.json()).toMatchObject({ responseType: 'error', data: null });
      const operator = await fetch(`http://127.0.0.1:${ports.rest}${endpoint}`);
      expect(operator.status).toBe(200);
      expect(ports.rest).not.toBe(Number(rest.port));
    },
  );
});

describe('#16 x-request-id is a bounded token or a new one', () => {
  afterAll(closeDb);

  async function processWithRequestId(requestId: string) {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const base = `/${orgId}/event/${eventId}`;
    const form = new FormData();
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#864' } })
      .jpeg()
      .toBuffer();
    form.append('files', new Blob([photo], { type: 'image/jpeg' }), 'rid.jpg');
    const imported = expectSuccess(await api(`${base}/pipeline/photos/import`, { key, method: 'POST', body: form }));
    const processed = await api(`${base}/pipeline/photos/process`, {
      key,
      method: 'POST',
      headers: { 'x-request-id': requestId },
    });
    expectSuccess(processed);
    const jobs = new JobQueues(cfg.REDIS_URL);
    try {
      const job = await jobs.queue('photos').getJob(jobIdOf('photos', { photoId: imported.files[0].image_id })!);
      return { echoed: processed.headers.get('x-request-id'), forwarded: job?.data.httpRequestId };
    } finally {
      await jobs.close();
    }
  }

  it('#16 a 10 KB x-request-id is replaced, never echoed or forwarded', async () => {
    const huge = 'a'.repeat(10 * 1024);
    const { echoed, forwarded } = await processWithRequestId(huge);
    expect(echoed).toMatch(/^[\w.:-]{1,128}$/);
    expect(echoed).not.toBe(huge);
    expect(forwarded).toBe(echoed);
  });

  it('#16 an x-request-id with spaces and markup is replaced, never echoed or forwarded', async () => {
    const odd = 'abc <script>alert(1)</script>';
    const { echoed, forwarded } = await processWithRequestId(odd);
    expect(echoed).toMatch(/^[\w.:-]{1,128}$/);
    expect(forwarded).toBe(echoed);
  });

  it('#16 a newline-bearing x-request-id never comes back as a header', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(rest.port), rest.hostname, () => {
        socket.write(
          `GET /api/v1/ext/account HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: ok\nX-Injected: yes\r\n\r\n`,
        );
      });
      let text = '';
      socket.on('data', (c) => (text += c.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).not.toMatch(/x-request-id: ok/i);
    expect(raw).not.toMatch(/x-injected/i);
  });

  it('#16 a well-formed x-request-id is kept', async () => {
    const id = `trace-${Date.now()}`;
    const { echoed, forwarded } = await processWithRequestId(id);
    expect(echoed).toBe(id);
    expect(forwarded).toBe(id);
  });
});
