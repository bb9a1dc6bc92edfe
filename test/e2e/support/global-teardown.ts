import { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** Stops the platform the way Ctrl-C does, and removes its data unless E2E_KEEP_DATA is set. */
export default async function globalTeardown(): Promise<void> {
  const platform = (globalThis as any).__PLATFORM__ as { child: ChildProcess; dataDir: string; jwksServer: { close(): void } } | undefined;
  if (!platform) return;
  platform.jwksServer.close();
  const { child } = platform;
  if (child.exitCode === null) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGINT');
    });
  }
  if (!process.env.E2E_KEEP_DATA) rmSync(platform.dataDir, { recursive: true, force: true });
}
