import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// Light entry: the global setup runs in the tests' process and must not load the platform's entities.
import { freePort } from '@em/platform/ports';

// Not imported from @em/core: the global setup runs in the tests' process, and entity metadata that
// @em/core registers on this realm's globalThis would leak into every test file's realm, where
// MikroORM then fails ("Map.prototype.set called on incompatible receiver").
const REPO_ROOT = path.resolve(__dirname, '../../..');

export const PORT_VARIABLES = [
  'REST',
  'GATEWAY',
  'EVENTS',
  'IMAGES',
  'SEARCH',
  'MEDIA',
  'ML_WORKER',
  'EMBEDDED_POSTGRES',
  'EMBEDDED_REDIS',
  'EMBEDDED_S3',
  'REST_OPERATOR',
  'IDENTITY',
] as const;

export interface SpawnedPlatform {
  child: ChildProcess;
  dataDir: string;
  infoFile: string;
  logFile: string;
  /** `REST`, `GATEWAY`, ... -> port. */
  ports: Record<(typeof PORT_VARIABLES)[number], number>;
  /** Stops it the way Ctrl-C does (SIGKILL after 30 s) and removes its data unless E2E_KEEP_DATA or `keepData` is set. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** Ports free right now, all different. */
export async function freePorts<K extends string>(names: readonly K[]): Promise<Record<K, number>> {
  const ports = {} as Record<K, number>;
  for (const name of names) {
    let port = await freePort();
    while (Object.values(ports).includes(port)) port = await freePort();
    ports[name] = port;
  }
  return ports;
}

/**
 * Starts a platform as `npm start` does (its own process, `scripts/platform/dist/start.js`) in a new data
 * directory on free ports, and waits for it to be up (its info file written). `env` is added to
 * the process environment: limits, or external infrastructure (REDIS_URL, S3_*).
 */
export async function spawnPlatform(
  opts: {
    env?: Record<string, string>;
    prefix?: string;
    timeoutMs?: number;
    dataDir?: string;
    onSpawn?: (child: ChildProcess, dataDir: string) => void;
  } = {},
): Promise<SpawnedPlatform> {
  // An existing data directory is a restart: its info file is written anew once the platform is up.
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? 'em-e2e-'));
  const ports = await freePorts(PORT_VARIABLES);
  const infoFile = path.join(dataDir, 'platform.json');
  const logFile = path.join(dataDir, 'platform.log');
  rmSync(infoFile, { force: true });
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts/platform/dist/start.js')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_INFO_FILE: infoFile,
      LOG_LEVEL: 'warn',
      // The tests play clients at many addresses through X-Forwarded-For from loopback (the adapter's default trusts none).
      TRUST_PROXY: 'loopback',
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [`${k}_PORT`, String(v)])),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  opts.onSpawn?.(child, dataDir);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let stopping = false;
  // A platform gone in the middle of a test fails it with "unavailable": its own last words say why.
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const tail = readFileSync(logFile, 'utf8').split('\n').slice(-60).join('\n');
    console.error(
      `the platform exited (${code ?? signal}) in the middle of the tests; the end of ${logFile}:\n${tail}`,
    );
  });

  // A hang detector: the platform starts several times slower on a slow or busy machine.
  const deadline = Date.now() + (opts.timeoutMs ?? 900_000);
  while (!existsSync(infoFile)) {
    if (child.exitCode !== null)
      throw new Error(`the platform exited (${child.exitCode}) while starting; see ${logFile}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the platform did not start in time; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    dataDir,
    infoFile,
    logFile,
    ports,
    async stop(stopOpts = {}) {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGINT');
        });
      }
      if (!process.env.E2E_KEEP_DATA && !stopOpts.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The platform's info file: URLs, the services' environment and the demo. */
export function readPlatformInfo(platform: SpawnedPlatform): {
  restUrl: string;
  gatewayUrl: string;
  env: Record<string, string>;
  demo: { orgId: number; eventId: number; apiKey: string };
} {
  return JSON.parse(readFileSync(platform.infoFile, 'utf8'));
}

/** The pid of one service process of a platform (found by its DATA_DIR), or null. */
export function servicePid(dataDir: string, entry: string): number | null {
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes(entry)) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`DATA_DIR=${dataDir}`)) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}
