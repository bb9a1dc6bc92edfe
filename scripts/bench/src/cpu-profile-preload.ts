import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

/**
 * Loaded with `--require` into each service when BENCH_CPU_PROF is set (Node 20 refuses `--cpu-prof`
 * in NODE_OPTIONS): profiles the whole process and writes `<dir>/<script>-<pid>.cpuprofile` at exit.
 */
const dir = process.env.BENCH_CPU_PROF;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    // An in-process session answers synchronously, so the profile is written before the process ends.
    session.post('Profiler.stop', (err, result) => {
      if (!err)
        writeFileSync(
          path.join(
            dir,
            `${path.basename(path.dirname(path.dirname(process.argv[1] ?? 'node')))}-${process.pid}.cpuprofile`,
          ),
          JSON.stringify(result.profile),
        );
    });
  });
}
