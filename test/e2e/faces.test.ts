import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import {
  API,
  api,
  closeDb,
  expectSuccess,
  fixtures,
  info,
  postForm,
  runCli,
  sql,
  waitForPipeline,
} from './support/platform';

const FACES = path.join(REPO_ROOT, '..', 'shared', 'fixtures', 'faces');
const GROUPS = path.join(FACES, 'group');
/** Who is on which group shot (labelled by hand; see scripts/bench/src/faces-ground-truth.ts). */
const ON_SHOTS: Record<string, string[]> = {
  sheldon: ['bbt1.jpg', 'bbt2.jpg', 'bbt3.jpg', 'bbt4.jpg', 'bbt5.jpg'],
  raj: ['bbt1.jpg', 'bbt3.jpg', 'bbt4.jpg', 'bbt5.jpg'],
  penny: ['bbt3.jpg', 'bbt4.jpg', 'bbt5.jpg'],
  stuart: [],
};

describe('faces found by the ml-worker', () => {
  afterAll(closeDb);

  it("the demo photos went through face detection: descriptors of 128 floats (dlib's chip, mirror-averaged: version 4, or 5 when only the second detector found the face), boxes inside the image", async () => {
    const rows = await sql(
      `select f.score, f.box_x, f.box_y, f.box_width, f.box_height, length(f.embedding) as bytes, f.descriptor_version
         from faces f join photos p on p.id = f.photo_id where p.event_id = $1`,
      [info.demo.eventId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const r of rows) {
      expect(r.bytes).toBe(512);
      expect([4, 5]).toContain(r.descriptor_version);
      expect(r.score).toBeGreaterThanOrEqual(0.5);
      expect(r.box_x).toBeGreaterThanOrEqual(0);
      expect(r.box_x + r.box_width).toBeLessThanOrEqual(1.001);
      expect(r.box_y + r.box_height).toBeLessThanOrEqual(1.001);
    }
    const noFaceStep = await sql(
      `select count(*)::int as n from photos where event_id = $1 and step_errors ? 'faces'`,
      [info.demo.eventId],
    );
    expect(noFaceStep[0].n).toBe(0);
  });

  const fixturesThere = existsSync(GROUPS);
  (fixturesThere ? it : it.skip)(
    'finds the faces of the group shots in ../shared/fixtures (skipped without them)',
    async () => {
      const { orgId, key } = await fixtures.organisation();
      const eventId = await fixtures.event(orgId);
      const base = `/${orgId}/event/${eventId}`;
      const form = new FormData();
      const names = readdirSync(GROUPS)
        .filter((f) => /\.jpe?g$/i.test(f))
        .sort();
      for (const name of names)
        form.append('files', new Blob([readFileSync(path.join(GROUPS, name))], { type: 'image/jpeg' }), name);
      const res = await fetch(`${API}${base}/pipeline/photos/import`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: form,
      });
      expect((await res.json()).data.imported).toBe(names.length);
      expectSuccess(await api(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
      await waitForPipeline(base, key);
      const perPhoto = await sql(
        `select p.original_file_name as name, count(f.id)::int as faces from photos p left join faces f on f.photo_id = p.id
        where p.event_id = $1 group by 1 order by 1`,
        [eventId],
      );
      // 23 faces were counted by hand on these five shots; every shot has several.
      const total = perPhoto.reduce((n: number, r: any) => n + r.faces, 0);
      for (const r of perPhoto) expect(r.faces).toBeGreaterThanOrEqual(2);
      expect(total).toBeGreaterThanOrEqual(20);
      expect(total).toBeLessThanOrEqual(26);

      // Selfie search on these shots: a person's crop finds shots they are on, never one they are not on.
      expectSuccess(await api(`${base}/pipeline/photos/go-live`, { key, method: 'POST' }));
      const fileOf = new Map(
        (await sql(`select id, original_file_name from photos where event_id = $1`, [eventId])).map((r: any) => [
          r.id,
          r.original_file_name,
        ]),
      );
      for (const [person, shots] of Object.entries(ON_SHOTS)) {
        const selfie = readFileSync(path.join(FACES, person, '1.png'));
        const found = expectSuccess(await postForm(`${base}/faces`, key, selfie, {}, '1.png'));
        const onShots = found.images.map((i: any) => fileOf.get(i.image_id)).sort();
        for (const shot of onShots) expect(shots).toContain(shot);
        expect(onShots.length).toBeGreaterThanOrEqual(Math.ceil(shots.length * 0.6));
      }
    },
  );
});

describe('reembed-faces (cli): faces of an older descriptor version are described again', () => {
  afterAll(closeDb);

  const cli = runCli;

  it('queues the photos with faces of the box family (stored before version 4), which come back at the current version and stay published', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const { orgId } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-reembed-'));
    const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
    writeFileSync(path.join(dir, 'people.jpg'), readFileSync(path.join(demo, 'sample5.jpg')));
    await cli('import-photos', '--event', String(eventId), '--dir', dir);
    rmSync(dir, { recursive: true, force: true });
    const [photo] = await sql(`select id from photos where event_id = $1`, [eventId]);
    const faces = await sql(`select count(*)::int as n from faces where photo_id = $1`, [photo.id]);
    expect(faces[0].n).toBeGreaterThan(0);
    // As a photo processed before descriptor version 4.
    await sql(`update faces set descriptor_version = 2 where photo_id = $1`, [photo.id]);

    expect(await cli('reembed-faces', '--event', String(eventId))).toContain(
      '1 photos and 0 videos with faces older than descriptor version 4; 1 queued',
    );
    const deadline = Date.now() + 120_000;
    for (;;) {
      const [row] = await sql(
        `select p.status, p.published_at, min(f.descriptor_version)::int as version, count(f.id)::int as n from photos p left join faces f on f.photo_id = p.id where p.id = $1 group by p.id`,
        [photo.id],
      );
      if (row.status === 'processed' && row.version >= 4) {
        expect(row.n).toBe(faces[0].n);
        expect(row.published_at).not.toBeNull();
        break;
      }
      if (Date.now() > deadline) throw new Error(`not re-embedded in time: ${JSON.stringify(row)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // Nothing left to do: a second run queues nothing.
    expect(await cli('reembed-faces', '--event', String(eventId))).toContain('0 photos and 0 videos');
  }, 180_000);
});
