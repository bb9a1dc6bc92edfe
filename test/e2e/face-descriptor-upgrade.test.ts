import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import { descriptorToBuffer } from '@em/core/media';
import { FaceAnalyzer, PHOTO_FACE_OPTIONS } from '@em/ml-worker';
import { closeDb, expectSuccess, fixtures, postForm, runCli, sql } from './support/platform';

const FACES = path.join(REPO_ROOT, '..', 'shared', 'fixtures', 'faces');
const GROUPS = path.join(FACES, 'group');
/** The group shots sheldon is on (all five) and those raj is on (scripts/bench/src/faces-ground-truth.ts). */
const ON_SHOTS: Record<string, string[]> = {
  sheldon: ['bbt1.jpg', 'bbt2.jpg', 'bbt3.jpg', 'bbt4.jpg', 'bbt5.jpg'],
  raj: ['bbt1.jpg', 'bbt3.jpg', 'bbt4.jpg', 'bbt5.jpg'],
};

/**
 * An install upgraded to descriptor version 4 with faces stored before it: the event's faces are
 * box-family ones (face-api's box chip, versions 2-3, made here as the worker made them before).
 * A selfie still finds its photos (its box descriptor against them), and reembed-faces brings the
 * faces to version 4 (the ml-worker does the same for every event at each start).
 */
(existsSync(GROUPS) ? describe : describe.skip)(
  'upgrade to descriptor version 4 (skipped without ../shared/fixtures)',
  () => {
    afterAll(closeDb);

    const cli = runCli;

    it("an event whose faces are all of the box family is searched with the selfie's box descriptor, then re-described at version 4, and found again", async () => {
      const { orgId, key } = await fixtures.organisation();
      const eventId = await fixtures.event(orgId);
      const base = `/${orgId}/event/${eventId}`;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'upgrade-'));
      const shots = readdirSync(GROUPS)
        .filter((f) => /\.jpe?g$/i.test(f))
        .sort();
      for (const shot of shots) copyFileSync(path.join(GROUPS, shot), path.join(dir, shot));
      await cli('import-photos', '--event', String(eventId), '--dir', dir);
      rmSync(dir, { recursive: true, force: true }); // imported, processed and published by the command

      // The faces as an install of before version 4 stored them.
      const faces = new FaceAnalyzer();
      await faces.load();
      const photos: Array<{ id: string; original_file_name: string }> = await sql(
        'select id, original_file_name from photos where event_id = $1',
        [eventId],
      );
      for (const photo of photos) {
        const old = await faces.detectAll(readFileSync(path.join(GROUPS, photo.original_file_name)), {
          ...PHOTO_FACE_OPTIONS,
          chip: 'box',
        });
        expect(old.every((f) => f.descriptorVersion === 2 || f.descriptorVersion === 3)).toBe(true);
        await sql('delete from faces where photo_id = $1', [photo.id]);
        for (const f of old) {
          await sql(
            'insert into faces (photo_id, event_id, embedding, score, box_x, box_y, box_width, box_height, descriptor_version) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
            [
              photo.id,
              eventId,
              descriptorToBuffer(f.descriptor),
              f.score,
              f.box.x,
              f.box.y,
              f.box.width,
              f.box.height,
              f.descriptorVersion,
            ],
          );
        }
      }
      const fileOf = new Map(photos.map((p) => [p.id, p.original_file_name]));
      const search = async (person: string) => {
        const found = expectSuccess(
          await postForm(`${base}/faces`, key, readFileSync(path.join(FACES, person, '1.png')), {}, '1.png'),
        );
        const onShots = found.images.map((i: any) => fileOf.get(i.image_id)).sort();
        for (const shot of onShots) expect(ON_SHOTS[person]).toContain(shot);
        expect(onShots.length).toBeGreaterThanOrEqual(Math.ceil(ON_SHOTS[person].length * 0.6));
        return found.request_id as string;
      };

      // Before re-embedding: only box faces, matched by the selfie's box descriptor (stored with its chip one).
      const before = await search('sheldon');
      const [stored] = await sql(
        "select length(embedding)::int as bytes, substring(embedding from 513) <> decode(repeat('00', 512), 'hex') as with_box from face_searches where request_id = $1",
        [before],
      );
      expect(stored).toEqual({ bytes: 1024, with_box: true });

      expect(await cli('reembed-faces', '--event', String(eventId))).toContain(
        `${photos.length} photos and 0 videos with faces older than descriptor version 4; ${photos.length} queued`,
      );
      const deadline = Date.now() + 240_000;
      for (;;) {
        const [row] = await sql(
          'select count(*) filter (where descriptor_version < 4)::int as old, count(*)::int as n from faces where event_id = $1',
          [eventId],
        );
        const [pending] = await sql(
          "select count(*)::int as n from photos where event_id = $1 and status <> 'processed'",
          [eventId],
        );
        if (row.old === 0 && row.n > 0 && pending.n === 0) break;
        if (Date.now() > deadline) throw new Error(`not re-embedded in time: ${JSON.stringify(row)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
      // After: the stored faces are versions 4-5 only (the search subgraph's index in memory keeps the
      // replaced ones until its full reload, so its answers mix both families meanwhile: still right).
      const versions = await sql('select distinct descriptor_version as v from faces where event_id = $1 order by 1', [
        eventId,
      ]);
      for (const { v } of versions) expect([4, 5]).toContain(v);
      await search('sheldon');
      await search('raj');
    }, 420_000);
  },
);
