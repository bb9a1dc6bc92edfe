import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import { api, closeDb, expectSuccess, fixtures, info, sql, waitForPipeline } from './support/platform';
import { drawnPhotosForm, expectDrawnPhotosProcessedOnce } from './support/drawn-photos';
import { servicePid } from './support/spawn-platform';

const PHOTOS = 200;

describe(`a worker killed in the middle of processing ${PHOTOS} photos`, () => {
  let replacement: ChildProcess | undefined;
  afterAll(async () => {
    replacement?.kill('SIGTERM');
    await closeDb();
  });

  it('loses nothing and processes every photo exactly once after a restart', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const base = `/${orgId}/event/${eventId}`;
    const bibs = Array.from({ length: PHOTOS }, (_, i) => 3100 + i);
    // Uploads of at most 100 files each (UPLOAD_MAX_FILES).
    for (let i = 0; i < bibs.length; i += 100) {
      const form = await drawnPhotosForm(bibs.slice(i, i + 100), { width: 700, height: 450 });
      expect(
        expectSuccess(await api(`${base}/pipeline/photos/import`, { key, method: 'POST', body: form })).imported,
      ).toBe(Math.min(100, bibs.length - i));
    }

    const pid = servicePid(info.env.DATA_DIR, 'ml-worker/dist/main.js');
    expect(pid).not.toBeNull();
    expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
    // Kill it with jobs in flight: once some photos are done and others are not.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = expectSuccess(await api(`${base}/pipeline/photos/status`, { key }));
      if (status.processed >= 10 && status.processed < PHOTOS) break;
      if (Date.now() > deadline) throw new Error('processing did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(pid!, 'SIGKILL');
    const atKill = expectSuccess(await api(`${base}/pipeline/photos/status`, { key }));
    expect(atKill.processed).toBeLessThan(PHOTOS);

    replacement = spawn(process.execPath, [path.join(REPO_ROOT, 'ml-worker/dist/main.js')], {
      env: { ...process.env, ...info.env, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const done = await waitForPipeline(base, key, 400_000);
    expect(done).toMatchObject({ total: PHOTOS, processed: PHOTOS, failed: 0 });

    await expectDrawnPhotosProcessedOnce(sql, eventId, bibs);
  }, 600_000);
});
