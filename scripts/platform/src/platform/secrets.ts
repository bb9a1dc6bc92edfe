import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { makePrivateDir, writePrivateFile } from './private-files';

export interface PlatformSecrets {
  principalSecret: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  /** The embedded Postgres superuser's password. */
  postgresPassword: string;
  /** The embedded Redis's password. */
  redisPassword: string;
  /** The dashboard's client secret at the embedded identity provider. */
  dashboardClientSecret: string;
  /** Signs the embedded identity provider's cookies. */
  identityCookieSecret: string;
}

const generators: { [K in keyof PlatformSecrets]: () => string } = {
  principalSecret: () => randomBytes(32).toString('base64url'),
  s3AccessKeyId: () => `EMB${randomBytes(8).toString('hex').toUpperCase()}`,
  s3SecretAccessKey: () => randomBytes(30).toString('base64url'),
  postgresPassword: () => randomBytes(32).toString('hex'),
  redisPassword: () => randomBytes(32).toString('hex'),
  dashboardClientSecret: () => randomBytes(32).toString('base64url'),
  identityCookieSecret: () => randomBytes(32).toString('base64url'),
};

/**
 * Secrets of the embedded default, generated once into `<dataDir>/secrets.json` (mode 600); a
 * secret that an older data directory lacks is added to it.
 */
export function loadOrCreateSecrets(dataDir: string): PlatformSecrets {
  const file = path.join(dataDir, 'secrets.json');
  const stored: Partial<PlatformSecrets> = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<PlatformSecrets>)
    : {};
  const missing = (Object.keys(generators) as Array<keyof PlatformSecrets>).filter((k) => !stored[k]);
  if (!missing.length) return stored as PlatformSecrets;
  const secrets = { ...stored } as PlatformSecrets;
  for (const k of missing) secrets[k] = generators[k]();
  makePrivateDir(dataDir);
  writePrivateFile(file, JSON.stringify(secrets, null, 2));
  return secrets;
}
