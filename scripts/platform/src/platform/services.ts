import { REPO_ROOT } from '@em/core';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { canRestorePriority, niced, restorePriority } from './priority';

export interface ServiceDef {
  name: string;
  entry: string;
  /** The env variable of its operator port (/metrics and /health): the service's own port, or a separate one (the ml-worker's, the REST adapter's). */
  portVar?: string;
  /**
   * When it starts: `read-path` first (what a gallery answer crosses), `after-read-path` once those
   * answer, `background` last and not waited for (`ServiceGroup.readyInBackground` tells when it is ready).
   */
  start: 'read-path' | 'after-read-path' | 'background';
  /** Runs only when this says so (the embedded identity provider: only when no provider is configured). */
  when?: (env: Record<string, string>) => boolean;
}

/**
 * Every process of the platform. The Node services run their one-file bundle (dist/main.bundle.js,
 * built by scripts/platform/bundle-service.mjs): loading it costs a third less CPU than thousands of files.
 */
export const SERVICES: ServiceDef[] = [
  { name: 'events', entry: 'subgraphs/events/dist/main.bundle.js', portVar: 'EVENTS_PORT', start: 'read-path' },
  { name: 'images', entry: 'subgraphs/images/dist/main.bundle.js', portVar: 'IMAGES_PORT', start: 'read-path' },
  { name: 'gateway', entry: 'gateway/dist/main.bundle.js', portVar: 'GATEWAY_PORT', start: 'read-path' },
  {
    name: 'rest-adapter',
    entry: 'rest-adapter/dist/main.bundle.js',
    portVar: 'REST_OPERATOR_PORT',
    start: 'read-path',
  },
  // Searches, clips and sign-in: started once the galleries answer, so they do not share the cores with it.
  {
    name: 'search',
    entry: 'subgraphs/search/dist/main.bundle.js',
    portVar: 'SEARCH_PORT',
    start: 'after-read-path',
  },
  { name: 'media', entry: 'subgraphs/media/dist/main.bundle.js', portVar: 'MEDIA_PORT', start: 'after-read-path' },
  {
    name: 'identity',
    entry: 'identity/dist/main.bundle.js',
    portVar: 'IDENTITY_PORT',
    start: 'after-read-path',
    when: (env) => !!env.IDENTITY_COOKIE_SECRET,
  },
  // Its models take tens of seconds to load: reads and searches that need none are served meanwhile.
  // Not bundled: its worker threads and models are files found next to its compiled sources.
  { name: 'ml-worker', entry: 'ml-worker/dist/main.js', portVar: 'ML_WORKER_PORT', start: 'background' },
];

/** How long a background service may take to become ready (a cold model load on a slow machine). */
const BACKGROUND_READY_MS = 15 * 60_000;
/**
 * How often a background service's readiness is asked while it loads: each answer checks Postgres, Redis and S3 in
 * the service, beside its model loading, and nothing waits on it to the second (the ml-worker serves its queues first).
 */
export const BACKGROUND_POLL_MS = 1000;

export interface RunningService {
  def: ServiceDef;
  child: ChildProcess;
}

export interface ServiceGroup {
  services: RunningService[];
  /** Resolves when every background service answers /health/ready (rejects when one exits first). */
  readyInBackground: Promise<void>;
  stop(): Promise<void>;
}

/** A hang detector, not a speed target: model loading takes several times longer on a slow or busy machine. */
const SERVICE_START_TIMEOUT_MS = 300_000;

/** Resolves when the service answers `path` with a 2xx, asked every `intervalMs`; rejects when it exits or times out. */
export async function waitForHealth(
  service: Pick<RunningService, 'def' | 'child'>,
  port: number,
  timeoutMs: number,
  path = '/health',
  intervalMs = 150,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null)
      throw new Error(`${service.def.name} exited with code ${service.child.exitCode} while starting`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${service.def.name} did not become healthy on port ${port} within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts the services as child processes with `env`, in three waves: the read path's services at once
 * (they need nothing of each other to listen: the gateway reads the composed schema from its file),
 * waited for until each /health answers; then the other foreground ones, likewise; then the background
 * ones, whose model load would otherwise take the cores the read path needs to come up. On two cores,
 * seven services loading their modules at once made the first gallery wait for all seven.
 * `onOutput` receives every line a service prints.
 */
export async function startServices(opts: {
  env: Record<string, string>;
  onOutput: (service: string, line: string) => void;
  only?: string[];
  timeoutMs?: number;
  /** Told when each foreground wave answers, for the start's timeline. */
  onWaveUp?: (wave: 'read-path' | 'after-read-path') => void;
  /**
   * Where Node 22+ keeps the compiled code of the services' files between starts (NODE_COMPILE_CACHE; Node 20
   * ignores it). Node keys each entry by the file's content, so a new build never runs old code.
   */
  compileCacheDir?: string;
}): Promise<ServiceGroup> {
  const running: RunningService[] = [];
  const group: ServiceGroup = {
    services: running,
    readyInBackground: Promise.resolve(),
    async stop() {
      await Promise.all([...running].reverse().map((s) => stopChild(s.child)));
    },
  };
  // What is not on the read path starts at a lower priority until it is ready: the first gallery answers
  // while searches, clips, sign-in and the models are still loading on the same cores.
  const lowerFirst = canRestorePriority();
  const spawnService = (def: ServiceDef): RunningService => {
    const [command, args] =
      lowerFirst && def.start !== 'read-path'
        ? niced(process.execPath, [path.join(REPO_ROOT, def.entry)])
        : [process.execPath, [path.join(REPO_ROOT, def.entry)]];
    const compileCache = opts.compileCacheDir ? { NODE_COMPILE_CACHE: opts.compileCacheDir } : {};
    const child = spawn(command, args, {
      env: { ...compileCache, ...process.env, ...opts.env, TZ: 'UTC' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = { def, child };
    running.push(service);
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) opts.onOutput(def.name, line);
      });
    }
    return service;
  };
  const port = (def: ServiceDef) => Number(opts.env[def.portVar!]);
  const wanted = SERVICES.filter((s) => (!opts.only || opts.only.includes(s.name)) && (!s.when || s.when(opts.env)));
  try {
    const waitFor = (start: 'read-path' | 'after-read-path') => {
      const started = wanted.filter((def) => def.start === start).map((def) => ({ def, service: spawnService(def) }));
      return Promise.all(
        started
          .filter(({ def }) => def.portVar)
          .map(({ def, service }) => waitForHealth(service, port(def), opts.timeoutMs ?? SERVICE_START_TIMEOUT_MS)),
      ).then(() => {
        for (const { def, service } of started)
          if (lowerFirst && def.start !== 'read-path') restorePriority(service.child.pid!);
        opts.onWaveUp?.(start);
      });
    };
    await waitFor('read-path');
    await waitFor('after-read-path');
    const background = wanted
      .filter((def) => def.start === 'background')
      .map((def) => {
        const service = spawnService(def);
        const ready = def.portVar
          ? waitForHealth(service, port(def), BACKGROUND_READY_MS, '/health/ready', BACKGROUND_POLL_MS)
          : Promise.resolve();
        return ready.then(() => void (lowerFirst && restorePriority(service.child.pid!)));
      });
    group.readyInBackground = Promise.all(background).then(() => undefined);
    // Observed by whoever awaits it; unobserved, a failure must not end the process.
    group.readyInBackground.catch(() => undefined);
  } catch (err) {
    await group.stop();
    throw err;
  }
  return group;
}
