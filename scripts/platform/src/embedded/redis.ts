import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { writePrivateFile } from '../platform/private-files';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedRedisHandle {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function which(binary: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * The `redis-server` binary: from PATH; when missing on Debian/Ubuntu as root, installed from the
 * distribution's package; otherwise a clear message of what to do.
 */
export function ensureRedisServer(log: (line: string) => void): string {
  const found = which('redis-server');
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && which('apt-get')) {
    log('redis-server is not installed: installing Debian package redis-server (apt-get)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env });
    } catch {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
      execFileSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env });
    }
    const installed = which('redis-server');
    if (installed) return installed;
  }
  throw new Error(
    'redis-server was not found on PATH. Install Redis (Debian/Ubuntu: `sudo apt-get install redis-server`, ' +
      'macOS: `brew install redis`) or point REDIS_URL at a running Redis.',
  );
}

export function pingRedis(port: number, host = '127.0.0.1', timeoutMs = 500, password?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(`${password ? `AUTH ${JSON.stringify(password)}\r\n` : ''}PING\r\n`));
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
      if (answer.includes('+PONG')) done(true);
      else if (answer.startsWith('-') || answer.includes('\r\n-')) done(false);
    });
  });
}

/**
 * Redis on loopback with its data (append-only file) in `<dataDir>/redis`, so queued jobs survive a
 * restart. With `password`, clients must AUTH (it is in a 0600 config file, not on the command line).
 */
export async function startEmbeddedRedis(opts: {
  dataDir: string;
  port: number;
  password?: string;
  log: (line: string) => void;
}): Promise<EmbeddedRedisHandle> {
  const binary = ensureRedisServer(opts.log);
  const dir = path.join(opts.dataDir, 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const configFile = path.join(dir, 'redis.conf');
  writePrivateFile(configFile, opts.password ? `requirepass ${JSON.stringify(opts.password)}\n` : '');
  const child = spawn(
    binary,
    [
      configFile,
      '--port',
      String(opts.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr?.on('data', (d) => (output = (output + d).slice(-4000)));
  const deadline = Date.now() + 15_000;
  while (!(await pingRedis(opts.port, '127.0.0.1', 500, opts.password))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${opts.port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: opts.password
      ? `redis://:${encodeURIComponent(opts.password)}@127.0.0.1:${opts.port}`
      : `redis://127.0.0.1:${opts.port}`,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
