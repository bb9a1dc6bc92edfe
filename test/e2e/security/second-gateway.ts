import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import { freePort } from '@em/platform';
import { info } from '../support/platform';

export interface SecondGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * Another gateway process on the test platform (same Postgres, Redis and subgraphs), with its own
 * settings: the platform's gateway runs without a key cache, these tests need one.
 */
export async function startSecondGateway(env: Record<string, string>): Promise<SecondGateway> {
  const port = await freePort();
  const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'em-gw2-')), 'gateway.log');
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'gateway/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...info.env,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second gateway exited (${child.exitCode}); see ${logFile}`);
    if (Date.now() > deadline) throw new Error(`the second gateway did not start; see ${logFile}`);
    const live = await fetch(`${base}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (live) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: `${base}/graphql`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
