import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface PlatformSecrets {
  principalSecret: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
}

/** Secrets of the embedded default, generated once into `<dataDir>/secrets.json` (mode 600). */
export function loadOrCreateSecrets(dataDir: string): PlatformSecrets {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  mkdirSync(dataDir, { recursive: true });
  const secrets: PlatformSecrets = {
    principalSecret: randomBytes(32).toString('base64url'),
    s3AccessKeyId: `EMB${randomBytes(8).toString('hex').toUpperCase()}`,
    s3SecretAccessKey: randomBytes(30).toString('base64url'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
