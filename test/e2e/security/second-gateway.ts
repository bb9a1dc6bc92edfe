import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import { freePort } from '@em/platform';
import { info } from '../support/platform';

/**
 * As the test platform's own services: every test calls from 127.0.0.1 and many expect 401/403, and the failures
 * are counted in the shared Redis, so a second service throttles them only where its test sets its own limit.
 */
const UNTHROTTLED = { AUTH_FAILURE_LIMIT: '100000' };

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
  const base = await spawnService(
    'gateway',
    { GATEWAY_PORT: String(port), ...env },
    `http://127.0.0.1:${port}/health/live`,
  );
  return { url: `${base.origin}/graphql`, stop: () => base.stop() };
}

/** Another REST adapter in front of `gatewayUrl` (a second gateway with a key cache), with its own settings. */
export async function startSecondRestAdapter(gatewayUrl: string, env: Record<string, string>): Promise<SecondGateway> {
  const [port, operatorPort] = [await freePort(), await freePort()];
  const service = await spawnService(
    'rest-adapter',
    { REST_PORT: String(port), REST_OPERATOR_PORT: String(operatorPort), GATEWAY_URL: gatewayUrl, ...env },
    `http://127.0.0.1:${operatorPort}/health/live`,
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => service.stop() };
}

async function spawnService(
  name: 'gateway' | 'rest-adapter',
  env: Record<string, string>,
  liveUrl: string,
): Promise<{ origin: string; stop(): Promise<void> }> {
  const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), `em-${name}2-`)), `${name}.log`);
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, `${name}/dist/main.js`)], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...info.env, LOG_LEVEL: 'warn', ...UNTHROTTLED, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second ${name} exited (${child.exitCode}); see ${logFile}`);
    if (Date.now() > deadline) throw new Error(`the second ${name} did not start; see ${logFile}`);
    const live = await fetch(liveUrl).then(
      (r) => r.ok,
      () => false,
    );
    if (live) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    origin: new URL(liveUrl).origin,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      // Its log is kept only when it failed to start (the error names it).
      rmSync(path.dirname(logFile), { recursive: true, force: true });
    },
  };
}
