import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

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
