import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CLI = path.join(__dirname, '..', 'dist', 'cli.js');

describe('the CLI on Node 22', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'cli-compile-cache-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The CLI as a user runs it (no NODE_COMPILE_CACHE, which alone would turn the cache on), its temp and cache dirs in `dir`. */
  const runCli = (node = process.execPath) =>
    spawnSync(node, [CLI, 'import-photos', '--help'], {
      env: {
        ...process.env,
        NODE_COMPILE_CACHE: '',
        NODE_OPTIONS: '',
        TMPDIR: path.join(dir, 'tmp'),
        XDG_CACHE_HOME: path.join(dir, 'cache'),
      },
      encoding: 'utf8',
    });
  const files = (folder: string) => readdirSync(folder, { recursive: true }).length;

  it("keeps the compiled code of what it loads for the next command, in the user's own cache folder", () => {
    const run = runCli();
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('import-photos');
    const cache = path.join(dir, 'cache', 'event-media-platform', 'cli-compile-cache');
    expect(files(cache)).toBeGreaterThan(1);
    expect(statSync(cache).mode & 0o077).toBe(0);
  });

  it("never uses the shared temp dir's cache folder, which another local user can create first and fill", () => {
    const planted = path.join(dir, 'tmp', 'node-compile-cache');
    mkdirSync(planted, { recursive: true });
    chmodSync(planted, 0o777);
    expect(runCli().status).toBe(0);
    expect(files(planted)).toBe(0);
  });

  it('runs without a cache when its cache folder is open to others', () => {
    const cache = path.join(dir, 'cache', 'event-media-platform', 'cli-compile-cache');
    mkdirSync(cache, { recursive: true });
    chmodSync(cache, 0o777);
    const run = runCli();
    expect(run.status).toBe(0);
    expect(files(cache)).toBe(0);
  });

  // The README says Node 20 still runs the platform: the CLI on it runs without the cache Node 20 does not have.
  const olderNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
    (node) =>
      spawnSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout?.trim() === '20',
  );
  (olderNode ? it : it.skip)('runs on Node 20, without a compile cache', () => {
    const run = runCli(olderNode);
    expect(run.stderr).not.toContain('TypeError');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('import-photos');
  });
});
