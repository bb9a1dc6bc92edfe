import { Platform } from '@em/platform';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { startBenchPlatform } from './platform-ports';
import { platformProcesses, wakeups } from './process-cpu';
import { BenchRow } from './table';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
/** After the ml-worker is ready: the start's own work (queue set-up, first scrapes, GC) settles first. */
const SETTLE_MS = 20_000;

/**
 * `npm run bench -- idle`: what a running platform with nothing to do costs, per process: CPU milliseconds
 * and wake-ups (voluntary context switches of all threads) per second, over a minute with no request.
 * Wake-ups are the steadier figure on a shared machine: every timer or poll that fires shows in them.
 */
export async function idleBench(rows: BenchRow[]): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'em-bench-idle-'));
  let platform: Platform | undefined;
  try {
    platform = await startBenchPlatform(dataDir);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const cpu = platformProcesses(platform, dataDir);
    const services = platform.services.services.map((s) => [s.def.name, s.child.pid!] as const);
    const wokenBefore = new Map(services.map(([name, pid]) => [name, wakeups(pid)]));
    const cpuBefore = cpu();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const cpuAfter = cpu();
    const perSecond = (n: number) => n / IDLE_SECONDS;
    const lines = services.map(
      ([name, pid]) =>
        `${name} ${(perSecond(cpuAfter[name] - cpuBefore[name]) * 1000).toFixed(1)} ms / ` +
        `${perSecond(wakeups(pid) - wokenBefore.get(name)!).toFixed(0)}`,
    );
    const total = services.reduce((n, [name]) => n + perSecond(cpuAfter[name] - cpuBefore[name]), 0);
    rows.push({
      figure: 'idle platform: CPU ms and wake-ups per second, by Node process',
      value: `${lines.join('; ')}; all ${(total * 1000).toFixed(1)} ms of CPU per second`,
      target: '',
      how:
        `a platform the bench starts (no seed), ${SETTLE_MS / 1000} s after the ml-worker is ready, then ` +
        `${IDLE_SECONDS} s with no request: /proc/PID/stat utime+stime and the voluntary context switches of ` +
        `every thread (/proc/PID/task/*/status); load average ${loadavg()[0].toFixed(1)} at the end`,
    });
  } finally {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
