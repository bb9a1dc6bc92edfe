import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CLI = path.join(__dirname, '..', 'dist', 'cli.js');

describe('the CLI on Node 22', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'cli-compile-cache-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the compiled code of what it loads for the next command', () => {
    // Without NODE_COMPILE_CACHE (which alone turns the cache on), as a user runs it: the cache goes to the temp dir.
    const env = { ...process.env, NODE_COMPILE_CACHE: '', TMPDIR: dir, NODE_OPTIONS: '' };
    const run = spawnSync(process.execPath, [CLI, 'import-photos', '--help'], { env, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('import-photos');
    const cached = readdirSync(path.join(dir, 'node-compile-cache'), { recursive: true });
    expect(cached.length).toBeGreaterThan(1);
  });
});
