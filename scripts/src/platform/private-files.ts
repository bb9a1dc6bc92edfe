import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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

/**
 * Closes a data directory, including one made by an older version with the default umask: the
 * directory and its subdirectories 0700, its files (and the OAuth keys) 0600. Postgres keeps its
 * own cluster directory private itself; everything deeper is behind a closed directory.
 */
export function closeDataDir(dataDir: string): void {
  makePrivateDir(dataDir);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    const full = path.join(dataDir, entry.name);
    if (entry.isDirectory() && entry.name !== 'postgres') chmodSync(full, PRIVATE_DIR_MODE);
    else if (entry.isFile()) chmodSync(full, PRIVATE_FILE_MODE);
  }
  const oauth = path.join(dataDir, 'oauth');
  if (existsSync(oauth)) for (const name of readdirSync(oauth)) chmodSync(path.join(oauth, name), PRIVATE_FILE_MODE);
}
