import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import path from 'node:path';
import { spawnPlatform } from './spawn-platform';

/**
 * Starts the real platform once for the run, as `npm start` does (its own process): embedded
 * Postgres, Redis and S3 in a temporary data directory, every service on free ports, the demo
 * seeded through the worker. The tests read where everything is from the info file.
 */
export default async function globalSetup(): Promise<void> {
  // An identity provider's JWKS, served over HTTP the way production reaches one (OAUTH_JWKS_URL).
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(publicKey)), kid: 'test-idp-1', alg: 'ES256', use: 'sig' }],
  });
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
  const platform = await spawnPlatform({
    // A loaded machine may need longer than the default to start and seed the platform.
    timeoutMs: process.env.E2E_PLATFORM_START_MS ? Number(process.env.E2E_PLATFORM_START_MS) : undefined,
    env: {
      API_KEY_CACHE_SECONDS: '0',
      OAUTH_JWKS_URL: idp.jwksUrl,
      OAUTH_ISSUER: idp.issuer,
      OAUTH_AUDIENCE: idp.audience,
      RATE_LIMIT_WINDOW_SECONDS: '5',
      MAX_API_KEYS_PER_ORG: '5',
      RATE_LIMIT_MATCHING: '8',
      // Every test calls from 127.0.0.1 and many expect 401/403: the failed-auth throttle is tested on its own gateway.
      AUTH_FAILURE_LIMIT: '100000',
      SELFIE_MAX_BYTES: String(3 * 1024 * 1024),
      // Clip retention sweep often, so the retention test does not wait (security/media.test.ts).
      CLIP_RETENTION_SWEEP_SECONDS: '2',
    },
  });
  const { ports, infoFile } = platform;
  const idpFile = path.join(platform.dataDir, 'idp.json');
  writeFileSync(idpFile, JSON.stringify(idp));
  (globalThis as any).__PLATFORM__ = { platform, jwksServer };
  process.env.E2E_IDP = idpFile;
  process.env.E2E_PLATFORM_INFO = infoFile;
  // Each service's operator port (/metrics, /health): the REST adapter's is not its public port.
  process.env.E2E_PORTS = JSON.stringify({
    events: ports.EVENTS,
    images: ports.IMAGES,
    search: ports.SEARCH,
    media: ports.MEDIA,
    mlWorker: ports.ML_WORKER,
    gateway: ports.GATEWAY,
    rest: ports.REST_OPERATOR,
  });
}
