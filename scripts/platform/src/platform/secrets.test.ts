import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreateSecrets } from './secrets';

describe('secrets of the embedded default', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('adds the database and Redis passwords to an older secrets.json, keeping what it had, mode 0600', () => {
    const file = path.join(dir, 'secrets.json');
    const old = { principalSecret: 'p'.repeat(43), s3AccessKeyId: 'EMBOLD', s3SecretAccessKey: 's'.repeat(40) };
    writeFileSync(file, JSON.stringify(old), { mode: 0o644 });
    const secrets = loadOrCreateSecrets(dir);
    expect(secrets).toMatchObject(old);
    expect(secrets.postgresPassword).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets.redisPassword).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets.postgresPassword).not.toBe(secrets.redisPassword);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(secrets);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(dir)).toEqual(secrets);
  });
});
