import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** The nice value a service starts at while the read path's services come up first. */
export const STARTING_NICE = 10;

/**
 * Whether this process may lower a nice value back to its own (root, or RLIMIT_NICE allowing it): only then
 * does a service start at a lower priority, else it would keep it for good.
 */
export function canRestorePriority(): boolean {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/nice')) return false;
  if (process.getuid?.() === 0) return true;
  try {
    // "Max nice priority  <soft>  <hard>": a ceiling of 20 - soft; our own nice n needs 20 - n.
    const soft = /^Max nice priority\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return Number(soft) >= 20 - os.getPriority();
  } catch {
    return false;
  }
}

/** The command that starts `args` STARTING_NICE below this process's priority (every thread it makes inherits it). */
export function niced(command: string, args: string[]): [string, string[]] {
  return ['/usr/bin/nice', ['-n', String(STARTING_NICE), command, ...args]];
}

/**
 * Puts every thread of a process back to this process's nice value, the one the platform was started at
 * (`nice npm start` keeps its services niced; on Linux a nice value is per thread: a process's threads are
 * its tasks). Threads gone meanwhile are skipped; false when none could be changed.
 */
export function restorePriority(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  const own = os.getPriority();
  let restored = false;
  for (const task of tasks) {
    try {
      os.setPriority(Number(task), own);
      restored = true;
    } catch {
      // the thread ended meanwhile
    }
  }
  return restored;
}
