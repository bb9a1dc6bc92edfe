import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { embeddedIssuerFiles, PLATFORM_ENV_FILE } from '@em/core';

/**
 * The data directory holds every secret of the embedded default (database password, S3 keys,
 * the principal secret, the OAuth signing key, the demo key): nothing in it is for other local users.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Writes a file only its owner can read (also when it existed before with a wider mode). */
export function writePrivateFile(file: string, content: string | Buffer): void {
  writeFileSync(file, content, { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** What the launcher keeps in a data directory (Postgres keeps its own `postgres/` private itself). */
const LAUNCHER_DIRS = ['redis', 's3', 's3-spool', 'oauth', 'compile-cache'];
const launcherFiles = (dataDir: string) => [
  ...['secrets.json', PLATFORM_ENV_FILE, 'demo-api-key', 'demo-selfie.jpg'].map((name) => path.join(dataDir, name)),
  ...(Object.values(embeddedIssuerFiles(dataDir)) as string[]),
];

/**
 * Closes a data directory, including one made by an older version with the default umask: the
 * directory and the launcher's directories in it 0700, the launcher's files 0600 (only what it
 * knows: DATA_DIR may be shared with other things).
 */
export function closeDataDir(dataDir: string): void {
  makePrivateDir(dataDir);
  for (const dir of LAUNCHER_DIRS)
    if (existsSync(path.join(dataDir, dir))) chmodSync(path.join(dataDir, dir), PRIVATE_DIR_MODE);
  for (const file of launcherFiles(dataDir)) if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}
