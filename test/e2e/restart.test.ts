import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readPlatformInfo, servicePid, SpawnedPlatform, spawnPlatform } from './support/spawn-platform';

const ML_WORKER = 'ml-worker/dist/main.js';

/**
 * `npm start` on existing data: REST and the gateway serve reads while the ml-worker still loads its
 * models. The restarted ml-worker is held still (SIGSTOP) from its first instant, as a worker whose
 * models take long: the platform comes up anyway, a gallery answers, a selfie gets 503 with Retry-After.
 */
describe('a restart on existing data', () => {
  let platform: SpawnedPlatform | undefined;
  let frozen: number | null = null;
  afterAll(async () => {
    if (frozen) process.kill(frozen, 'SIGCONT');
    await platform?.stop();
  });

  it('serves the gallery before the ml-worker is ready, and a selfie gets 503 with Retry-After until it is', async () => {
    const first = await spawnPlatform({ prefix: 'em-e2e-restart-' });
    const { demo } = readPlatformInfo(first) as ReturnType<typeof readPlatformInfo> & { demo: { browserKey: string } };
    await first.stop({ keepData: true });
    const selfie = readFileSync(path.join(first.dataDir, 'demo-selfie.jpg'));

    let watcher: NodeJS.Timeout | undefined;
    platform = await spawnPlatform({
      dataDir: first.dataDir,
      onSpawn: (_child, dataDir) => {
        watcher = setInterval(() => {
          const pid = servicePid(dataDir, ML_WORKER);
          if (!pid) return;
          process.kill(pid, 'SIGSTOP');
          frozen = pid;
          clearInterval(watcher);
        }, 10);
      },
    });
    clearInterval(watcher);
    expect(frozen).not.toBeNull();
    const { restUrl } = readPlatformInfo(platform);
    const base = `${restUrl}/api/v1/ext/${demo.orgId}/event/${demo.eventId}`;
    const headers = { 'x-api-key': demo.apiKey };

    const gallery = await fetch(`${base}/images?page=1&page_size=10`, { headers });
    expect(gallery.status).toBe(200);
    expect(((await gallery.json()) as { data: { images: unknown[] } }).data.images.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/timeline/days`, { headers })).status).toBe(200);
    const log = () => readFileSync(platform!.logFile, 'utf8');
    expect(log()).toMatch(/ml-worker +loading its models/);

    const searchBySelfie = () => {
      const form = new FormData();
      form.append('file', new Blob([selfie], { type: 'image/jpeg' }), 'selfie.jpg');
      return fetch(`${base}/faces`, { method: 'POST', headers, body: form });
    };
    const early = await searchBySelfie();
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('10');
    expect(await early.json()).toMatchObject({
      responseType: 'error',
      data: null,
      message: expect.stringMatching(/starting up/),
    });

    // Let the worker go on: it loads its models, its readiness turns, the banner's follow-up says so, selfies work.
    process.kill(frozen!, 'SIGCONT');
    frozen = null;
    const health = `http://127.0.0.1:${platform.ports.ML_WORKER}/health/ready`;
    const deadline = Date.now() + 240_000;
    let ready: { status: number; body: any } = { status: 0, body: null };
    while (Date.now() < deadline) {
      const res = await fetch(health).catch(() => null);
      ready = { status: res?.status ?? 0, body: res ? await res.json() : null };
      if (ready.status === 200) break;
      if (res) expect(ready.body.checks.models).toBe('loading');
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(ready).toMatchObject({ status: 200, body: { checks: { models: 'ok' } } });
    for (let i = 0; i < 40 && !/ml-worker ready \(/.test(log()); i++) await new Promise((r) => setTimeout(r, 250));
    expect(log()).toMatch(/ml-worker ready \([\d.]+ s after start\): selfie search is on/);
    // The search subgraph trusts a worker it saw for 2 s; a refusal seen before then has expired.
    const later = await searchBySelfie();
    expect(later.status).toBe(200);
    expect(((await later.json()) as { data: { images: unknown[] } }).data.images.length).toBeGreaterThan(0);
  }, 600_000);
});
