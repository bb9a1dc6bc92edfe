import { lstatSync, mkdirSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The user's own folder for the compiled code, or null when it cannot be trusted. Node's default, the shared temp
 * dir, is a folder another local user can create first and fill with code this process would run.
 */
export function privateCompileCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = path.join(
    env.XDG_CACHE_HOME || path.join(homedir(), '.cache'),
    'event-media-platform',
    'cli-compile-cache',
  );
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const folder = lstatSync(dir);
    const ours = process.getuid === undefined || folder.uid === process.getuid();
    return folder.isDirectory() && ours && (folder.mode & 0o077) === 0 ? dir : null;
  } catch {
    return null;
  }
}

// Each command is a new process that loads MikroORM, the AWS SDK and BullMQ: Node 22 keeps their compiled code
// between runs (NODE_COMPILE_CACHE, when set, turned it on already); imported first by cli.ts. Node 20 has no
// such cache and runs without it.
if (!process.env.NODE_COMPILE_CACHE && typeof enableCompileCache === 'function') {
  const dir = privateCompileCacheDir();
  if (dir) enableCompileCache(dir);
}
