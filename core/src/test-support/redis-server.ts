import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import type { Redis } from 'ioredis';
import { connectRedis } from '../redis';

/** A throwaway redis-server on a free port (the platform's tests use the same binary). */
export async function startRedis(): Promise<{ url: string; stop: () => void }> {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const redis: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) =>
      net
        .connect(port, '127.0.0.1')
        .on('connect', function (this: net.Socket) {
          this.destroy();
          resolve(true);
        })
        .on('error', () => resolve(false)),
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, stop: () => redis.kill() };
}

/** A throwaway redis-server and a fail-fast connection to it, ready for commands (it refuses them until then). */
export async function startRedisConnection(): Promise<{ redis: Redis; stop: () => void }> {
  const server = await startRedis();
  const redis = connectRedis(server.url, { failFast: true });
  redis.on('error', () => undefined);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return {
    redis,
    stop: () => {
      redis.disconnect();
      server.stop();
    },
  };
}
