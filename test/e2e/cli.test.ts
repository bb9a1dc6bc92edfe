import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { drawnBibPhoto } from './support/drawn-photos';
import { api, closeDb, expectError, expectSuccess, info } from './support/platform';

const CLI = path.resolve(__dirname, '../../scripts/cli/dist/cli.js');

/** Runs the organiser CLI against the test platform, as an operator would (`npm run cli -- ...`). */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...info.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function json(...args: string[]): Promise<any> {
  const res = await cli(...args, '--json');
  if (res.code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').at(-1)!);
}

/** A progressive JPEG whose last Huffman table is bogus: its header and end are whole, its decode fails. */
async function corruptLaterScan(): Promise<Buffer> {
  const noise = { type: 'gaussian' as const, mean: 128, sigma: 30 };
  const file = await sharp({ create: { width: 700, height: 450, channels: 3, noise, background: '#000' } })
    .jpeg({ progressive: true })
    .toBuffer();
  const table = file.lastIndexOf(Buffer.from([0xff, 0xc4]));
  file.fill(0xff, table + 5, table + 21); // its 16 code counts: more codes than a table can hold
  return file;
}

/** A refusal: exit code 1 and one clear line on stderr. */
async function refused(pattern: RegExp, ...args: string[]): Promise<void> {
  const res = await cli(...args);
  expect({ code: res.code, lines: res.stderr.trim().split('\n').length }).toEqual({ code: 1, lines: 1 });
  expect(res.stderr).toMatch(pattern);
}

describe('the organiser CLI (node scripts/cli/dist/cli.js)', () => {
  afterAll(closeDb);

  it('has --help for the whole and for each command, and refuses unknown commands and options in one line', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    for (const name of [
      'create-admin',
      'create-org',
      'create-event',
      'update-event',
      'list-events',
      'archive-event',
      'delete-event',
      'invite',
      'usage',
      'import-photos',
    ])
      expect(help.stdout).toContain(name);
    const eventHelp = await cli('create-event', '--help');
    expect(eventHelp.stdout).toMatch(/--threshold/);
    expect(eventHelp.stdout).toMatch(/--time-zone/);
    await refused(/^error: unknown command frobnicate/, 'frobnicate');
    await refused(/does not take --colour/, 'list-events', '--org', '1', '--colour', 'red');
    await refused(/--org must be a positive integer/, 'list-events', '--org', 'abc');
  }, 120_000); // five CLI processes

  it('walks an organiser through: admin, organisation, key, event with flags and threshold, import, live, a flag off gives 403, delete', async () => {
    const adminEmail = `cli-${randomUUID().slice(0, 8)}@example.org`;
    expect(await json('create-admin', '--email', adminEmail)).toMatchObject({ email: adminEmail, platformAdmin: true });
    const org = await json('create-org', '--name', `CLI Club ${randomUUID().slice(0, 6)}`, '--admin-email', adminEmail);
    expect(org.admin).toMatchObject({ email: adminEmail, role: 'admin' });
    const { key } = await json('create-key', '--org', String(org.id), '--name', 'site');

    const created = await cli(
      'create-event',
      '--org',
      String(org.id),
      '--name',
      'CLI 10K',
      '--date',
      '2026-05-17',
      '--time-zone',
      'Europe/Paris',
      '--flags',
      'bib_search,timeline_search',
      '--threshold',
      '70',
      '--watermark',
      'CLI 10K',
      '--status',
      'active',
    );
    expect(created.code).toBe(0);
    const eventId = Number(created.stdout.split('\n')[0]);
    expect(Number.isSafeInteger(eventId)).toBe(true);
    const base = `/${org.id}/event/${eventId}`;
    expect(expectSuccess(await api(`${base}/details`, { key }))).toMatchObject({
      bib_search: true,
      selfie_search: false,
      timeline_search: true,
      event_name: 'CLI 10K',
    });

    await refused(
      /confidence_threshold must be a number from 0 to 100/,
      'update-event',
      '--org',
      String(org.id),
      '--event',
      String(eventId),
      '--threshold',
      '101',
    );
    await refused(
      /time_zone must be an IANA time zone/,
      'create-event',
      '--org',
      String(org.id),
      '--name',
      'X',
      '--time-zone',
      'Mars/Base',
    );
    await refused(
      /unknown flag face_search/,
      'create-event',
      '--org',
      String(org.id),
      '--name',
      'X',
      '--flags',
      'face_search',
    );
    await refused(/FORBIDDEN|not found|Organisation not found/i, 'create-event', '--org', '2147483647', '--name', 'X');

    const dir = mkdtempSync(path.join(tmpdir(), 'em-cli-photos-'));
    try {
      for (const bib of [4501, 4502])
        writeFileSync(path.join(dir, `runner-${bib}.jpg`), await drawnBibPhoto(bib, { width: 700, height: 450 }));
      // Whole to the import's header check (it ends with its end marker), broken for the decoder: the worker fails it.
      writeFileSync(path.join(dir, 'corrupt.jpg'), await corruptLaterScan());
      expect(await json('import-photos', '--event', String(eventId), '--dir', dir)).toEqual({
        imported: 3,
        duplicate: 0,
        rejected: 0,
        failed: 1,
        failures: [{ fileName: 'corrupt.jpg', reason: 'corrupt or truncated image' }],
        published: 2,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(expectSuccess(await api(`${base}/images`, { key })).images).toHaveLength(2);
    expectSuccess(await api(`${base}/bibs/4501`, { key }));

    expect(
      await json('update-event', '--org', String(org.id), '--event', String(eventId), '--disable', 'bib_search'),
    ).toMatchObject({ bibSearch: false, timelineSearch: true });
    expectError(await api(`${base}/bibs/4501`, { key }), 403);
    expectSuccess(await api(`${base}/timeline/days`, { key }));

    expect((await json('list-events', '--org', String(org.id))).map((e: any) => e.id)).toEqual([eventId]);
    expect(
      await json(
        'invite',
        '--org',
        String(org.id),
        '--email',
        `member-${randomUUID().slice(0, 6)}@example.org`,
        '--role',
        'user',
      ),
    ).toMatchObject({ role: 'user', status: 'pending' });
    expect((await json('members', '--org', String(org.id))).length).toBe(2);
    expect((await json('usage', '--org', String(org.id))).totals).toMatchObject({ photosProcessed: 2 });
    expect(await json('archive-event', '--org', String(org.id), '--event', String(eventId))).toMatchObject({
      status: 'archived',
    });

    await refused(/add --yes/, 'delete-event', '--org', String(org.id), '--event', String(eventId));
    expect(
      await json('delete-event', '--org', String(org.id), '--event', String(eventId), '--yes', '--wait'),
    ).toMatchObject({ state: 'done', percent: 100 });
    expectError(await api(`${base}/details`, { key }), 404);
  }, 300_000); // fourteen CLI processes, each starting Node and the ORM
});
