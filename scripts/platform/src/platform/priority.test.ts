import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { canRestorePriority, niced, restorePriority, STARTING_NICE } from './priority';

/** The nice value of every thread of a process (field 19 of /proc/<pid>/task/<tid>/stat). */
const niceValues = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).map((tid) =>
    Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]),
  );

const linuxWithRights = canRestorePriority() ? it : it.skip;

describe('a service started at a lower priority', () => {
  linuxWithRights(
    'runs every thread niced, and every thread is put back to the platform own priority once ready',
    async () => {
      // The platform's own nice value: 0 as usual, or what `nice npm start` gave it.
      const own = os.getPriority();
      const [command, args] = niced(process.execPath, ['-e', 'setTimeout(() => undefined, 10_000)']);
      const child = spawn(command, args, { stdio: 'ignore' });
      try {
        await new Promise((r) => setTimeout(r, 500));
        const before = niceValues(child.pid!);
        expect(before.length).toBeGreaterThan(1);
        expect(new Set(before)).toEqual(new Set([Math.min(19, own + STARTING_NICE)]));
        expect(restorePriority(child.pid!)).toBe(true);
        expect(new Set(niceValues(child.pid!))).toEqual(new Set([own]));
      } finally {
        child.kill();
      }
    },
  );

  it('a process that is gone is not restored', () => {
    expect(restorePriority(2 ** 22 + 1)).toBe(false);
  });
});
