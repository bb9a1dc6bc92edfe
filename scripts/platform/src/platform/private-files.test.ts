import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDataDir, writePrivateFile } from './private-files';

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe('private files of the data directory', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'private-files-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("closes a data directory an older version left open, and only the launcher's own entries", () => {
    const dataDir = path.join(dir, 'data');
    for (const d of ['', 's3', 'redis', 'oauth']) mkdirSync(path.join(dataDir, d), { recursive: true, mode: 0o755 });
    for (const f of [
      'secrets.json',
      'platform.env',
      'demo-api-key',
      'oauth/private-key.pem',
      'oauth/jwks.json',
      'notes.txt',
    ])
      writeFileSync(path.join(dataDir, f), 'x', { mode: 0o644 });
    closeDataDir(dataDir);
    expect([
      mode(dataDir),
      mode(path.join(dataDir, 's3')),
      mode(path.join(dataDir, 'redis')),
      mode(path.join(dataDir, 'oauth')),
    ]).toEqual(['700', '700', '700', '700']);
    for (const f of ['secrets.json', 'platform.env', 'demo-api-key', 'oauth/private-key.pem', 'oauth/jwks.json'])
      expect([f, mode(path.join(dataDir, f))]).toEqual([f, '600']);
    expect(mode(path.join(dataDir, 'notes.txt'))).toBe('644');
  });

  it('rewrites an existing wider file as 0600', () => {
    const file = path.join(dir, 'secret');
    writeFileSync(file, 'old', { mode: 0o644 });
    writePrivateFile(file, 'new');
    expect(mode(file)).toBe('600');
  });
});
