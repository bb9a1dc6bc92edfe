import type { SpawnedPlatform } from './spawn-platform';

/** Stops the platform the way Ctrl-C does, and removes its data unless E2E_KEEP_DATA is set. */
export default async function globalTeardown(): Promise<void> {
  const running = (globalThis as any).__PLATFORM__ as
    { platform: SpawnedPlatform; jwksServer: { close(): void } } | undefined;
  if (!running) return;
  running.jwksServer.close();
  await running.platform.stop();
}
