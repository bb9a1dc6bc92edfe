import sharp from 'sharp';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import { API, api, closeDb, expectSuccess, fixtures, info, sql, waitForPipeline } from './support/platform';

/** The ml-worker process of this test platform (found by its DATA_DIR). */
function platformWorkerPid(): number | null {
  const pids = execFileSync('sh', ['-c', "pgrep -f 'ml-worker/dist/index.js' || true"], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  for (const pid of pids) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (env.includes(`DATA_DIR=${info.env.DATA_DIR}`)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

function drawnBib(bib: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1400" height="900"><rect width="1400" height="900" fill="#4a6d8c"/>
    <rect x="480" y="300" width="440" height="300" fill="white"/>
    <text x="700" y="510" font-size="170" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="black">${bib}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

describe('a worker killed in the middle of processing', () => {
  let replacement: ChildProcess | undefined;
  afterAll(async () => {
    replacement?.kill('SIGTERM');
    await closeDb();
  });

  it('loses nothing and processes every photo exactly once after a restart', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const base = `/${orgId}/event/${eventId}`;
    const bibs = Array.from({ length: 12 }, (_, i) => 3100 + i);
    const form = new FormData();
    for (const bib of bibs) form.append('files', new Blob([await drawnBib(bib)], { type: 'image/jpeg' }), `runner-${bib}.jpg`);
    const imported = (await (await fetch(`${API}${base}/pipeline/photos/import`, { method: 'POST', headers: { 'x-api-key': key }, body: form })).json()) as any;
    expect(imported.data.imported).toBe(12);

    const pid = platformWorkerPid();
    expect(pid).not.toBeNull();
    expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
    // Kill it with jobs in flight: once some photos are done and others are not.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = expectSuccess(await api(`${base}/pipeline/photos/status`, { key }));
      if (status.processed >= 1 && status.processed < 12) break;
      if (Date.now() > deadline) throw new Error('processing did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(pid!, 'SIGKILL');
    const atKill = expectSuccess(await api(`${base}/pipeline/photos/status`, { key }));
    expect(atKill.processed).toBeLessThan(12);

    replacement = spawn(process.execPath, [path.join(REPO_ROOT, 'ml-worker/dist/index.js')], { env: { ...process.env, ...info.env, LOG_LEVEL: 'warn' }, stdio: 'ignore' });
    const done = await waitForPipeline(base, key, 150_000);
    expect(done).toMatchObject({ total: 12, processed: 12, failed: 0 });

    const rows = await sql(
      `select p.original_file_name as name, array_agg(b.bib) as bibs
         from photos p left join photo_bibs b on b.photo_id = p.id where p.event_id = $1 group by 1 order by 1`,
      [eventId],
    );
    expect(rows.map((r: any) => [r.name, r.bibs])).toEqual(bibs.map((b) => [`runner-${b}.jpg`, [String(b)]]));
  }, 200_000);
});
