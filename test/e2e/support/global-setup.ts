import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@em/core';
import { freePort } from '@em/scripts/dist/platform/ports';

/**
 * Starts the real platform once for the run, as `npm start` does (its own process): embedded
 * Postgres, Redis and S3 in a temporary data directory, every service on free ports, the demo
 * seeded through the worker. The tests read where everything is from the info file.
 */
export default async function globalSetup(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'em-e2e-'));
  // An identity provider's JWKS, served over HTTP the way production reaches one (OAUTH_JWKS_URL).
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'test-idp-1', alg: 'ES256', use: 'sig' }] });
  const jwksServer = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(jwks);
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const idp = {
    issuer: 'https://idp.test.example/',
    audience: 'event-media-e2e',
    jwksUrl: `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`,
    privateJwk: { ...(await exportJWK(privateKey)), kid: 'test-idp-1', alg: 'ES256' },
  };
  const idpFile = path.join(dataDir, 'idp.json');
  writeFileSync(idpFile, JSON.stringify(idp));

  const ports: Record<string, number> = {};
  for (const name of ['REST', 'GATEWAY', 'EVENTS', 'IMAGES', 'SEARCH', 'MEDIA', 'ML_WORKER', 'EMBEDDED_POSTGRES', 'EMBEDDED_REDIS', 'EMBEDDED_S3']) {
    let port = await freePort();
    while (Object.values(ports).includes(port)) port = await freePort();
    ports[name] = port;
  }
  const infoFile = path.join(dataDir, 'platform.json');
  const logFile = path.join(dataDir, 'platform.log');
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts/dist/start.js')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_INFO_FILE: infoFile,
      LOG_LEVEL: 'warn',
      API_KEY_CACHE_SECONDS: '0',
      OAUTH_JWKS_URL: idp.jwksUrl,
      OAUTH_ISSUER: idp.issuer,
      OAUTH_AUDIENCE: idp.audience,
      RATE_LIMIT_WINDOW_SECONDS: '5',
      MAX_API_KEYS_PER_ORG: '5',
      RATE_LIMIT_MATCHING: '8',
      SELFIE_MAX_BYTES: String(3 * 1024 * 1024),
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [`${k}_PORT`, String(v)])),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);

  const deadline = Date.now() + 240_000;
  while (!existsSync(infoFile)) {
    if (child.exitCode !== null) throw new Error(`the platform exited (${child.exitCode}) while starting; see ${logFile}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the platform did not start within 240 s; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  (globalThis as any).__PLATFORM__ = { child, dataDir, jwksServer };
  process.env.E2E_IDP = idpFile;
  process.env.E2E_PLATFORM_INFO = infoFile;
  process.env.E2E_PORTS = JSON.stringify({ events: ports.EVENTS, images: ports.IMAGES, search: ports.SEARCH, media: ports.MEDIA, mlWorker: ports.ML_WORKER, gateway: ports.GATEWAY, rest: ports.REST });
}
