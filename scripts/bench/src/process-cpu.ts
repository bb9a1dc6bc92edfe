import { Platform } from '@em/platform';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** CPU clock ticks per second of /proc/PID/stat (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** CPU seconds (user + system) of a process from /proc/PID/stat; with `children`, its reaped children's too. */
export function cpuSeconds(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
    return (utime + stime + (children ? cutime + cstime : 0)) / TICKS;
  } catch {
    return 0;
  }
}

/** Pids whose parent is `parent`. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    });
}

/** A reader of every platform process's CPU seconds, by name (the bench process counts the embedded S3 and, reaped, the CLI). */
export function platformProcesses(platform: Platform, dataDir: string): () => Record<string, number> {
  const services = platform.services.services.map((s) => [s.def.name, s.child.pid!] as const);
  const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  // redis-server rewrites its command line; it runs in its data directory.
  const redis = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .find((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === path.join(dataDir, 'redis');
      } catch {
        return false;
      }
    });
  return () => {
    const own = process.cpuUsage();
    const self = cpuSeconds(process.pid, true) - cpuSeconds(process.pid);
    return {
      ...Object.fromEntries(services.map(([name, pid]) => [name, cpuSeconds(pid)])),
      postgres: cpuSeconds(postmaster, true) + childrenOf(postmaster).reduce((n, pid) => n + cpuSeconds(pid), 0),
      redis: redis ? cpuSeconds(Number(redis)) : NaN,
      cli: self,
      // The bench process between the reads only waits, apart from the embedded S3 it hosts.
      s3: (own.user + own.system) / 1e6,
    };
  };
}

/** Voluntary context switches of all of a process's threads: how often it slept and was woken (0 once gone). */
export function wakeups(pid: number): number {
  let total = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      total += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
  } catch {
    // a thread or the process ended between the listing and the read
  }
  return total;
}

/**
 * Seconds all of a process's threads were runnable: on a core or waiting in the run queue for one (/proc/PID/task/
 * TID/schedstat). Over a wall time, how many cores its work could have used on a free machine, whatever the load.
 */
export function runnableSeconds(pid: number): number {
  let ns = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
        ns += onCpu + waiting;
      } catch {
        // the thread ended between the listing and the read
      }
    }
  } catch {
    return NaN;
  }
  return ns / 1e9;
}
