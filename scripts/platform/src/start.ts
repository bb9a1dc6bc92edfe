import { dashboardUrl, DEFAULT_DATA_DIR, DEFAULT_PORTS } from '@em/core';
import { startPlatform } from './platform/platform';
import { writePrivateFile } from './platform/private-files';
import { DEMO_ADMIN_EMAIL, DEMO_BIBS } from './seed/demo';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Service logs are pino JSON; show them as one short line each. */
function printServiceLine(service: string, line: string): void {
  try {
    const entry = JSON.parse(line) as { level: number; msg: string; port?: number; err?: { message?: string } };
    const extra = entry.err
      ? ` ${entry.err.message ?? JSON.stringify(entry.err)}`
      : entry.port
        ? ` (port ${entry.port})`
        : '';
    console.log(`[${service}] ${LEVELS[entry.level] ?? entry.level} ${entry.msg}${extra}`);
  } catch {
    console.log(`[${service}] ${line}`);
  }
}

const envPort = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

/** Node 20 is past its end of life: it still runs the platform, but gets no security releases. */
function warnOnOldNode(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22)
    console.warn(`Node ${process.versions.node} is past its end of life: run the platform on Node 22 or 24.`);
}

async function main() {
  warnOnOldNode();
  const dataDir = process.env.DATA_DIR || DEFAULT_DATA_DIR;
  const started = Date.now();
  console.log(`Starting the platform (data in ${dataDir})...`);
  const platform = await startPlatform({
    dataDir,
    // A loaded machine (CI, benches beside) may need longer for the ml-worker to load its models.
    serviceStartMs: process.env.SERVICE_START_TIMEOUT_MS ? Number(process.env.SERVICE_START_TIMEOUT_MS) : undefined,
    ports: {
      rest: envPort('REST_PORT', DEFAULT_PORTS.rest),
      gateway: envPort('GATEWAY_PORT', DEFAULT_PORTS.gateway),
      events: envPort('EVENTS_PORT', DEFAULT_PORTS.events),
      images: envPort('IMAGES_PORT', DEFAULT_PORTS.images),
      search: envPort('SEARCH_PORT', DEFAULT_PORTS.search),
      media: envPort('MEDIA_PORT', DEFAULT_PORTS.media),
      mlWorker: envPort('ML_WORKER_PORT', DEFAULT_PORTS.mlWorker),
      restOperator: envPort('REST_OPERATOR_PORT', DEFAULT_PORTS.restOperator),
      identity: envPort('IDENTITY_PORT', DEFAULT_PORTS.identity),
      postgres: envPort('EMBEDDED_POSTGRES_PORT', DEFAULT_PORTS.postgres),
      redis: envPort('EMBEDDED_REDIS_PORT', DEFAULT_PORTS.redis),
      s3: envPort('EMBEDDED_S3_PORT', DEFAULT_PORTS.s3),
    },
    log: (l) => console.log(`[platform] ${l}`),
    onServiceOutput: printServiceLine,
  });

  if (process.env.PLATFORM_INFO_FILE) {
    // For tools that start the platform and wait for it (the end-to-end tests): where everything is.
    const info = { restUrl: platform.restUrl, gatewayUrl: platform.gatewayUrl, env: platform.env, demo: platform.demo };
    writePrivateFile(process.env.PLATFORM_INFO_FILE, JSON.stringify(info, null, 2));
  }

  let mlWorkerReady = false;
  const mlWorker = platform.mlWorkerReady.then(
    () => {
      mlWorkerReady = true;
    },
    (err: Error) => console.log(`[platform] ERROR the ml-worker did not become ready: ${err.message}`),
  );
  await Promise.race([mlWorker, new Promise((r) => setImmediate(r))]);

  const api = `${platform.restUrl}/api/v1/ext`;
  const demo = platform.demo!;
  const key = demo.apiKey ?? '<your API key>';
  const base = `${api}/${demo.orgId}/event/${demo.eventId}`;
  const pageUrl = participantPageUrl(platform.restUrl, demo.orgId, demo.eventId, demo.browserKey ?? null);
  const signIn = demo.organiserPassword
    ? `  Sign in as ${DEMO_ADMIN_EMAIL} with the password ${demo.organiserPassword}
  (kept in ${dataDir}/demo-organiser-password; members get a link: npm run cli -- set-password --email E)`
    : platform.cfg.DASHBOARD_CLIENT_SECRET
      ? `  Sign in at your identity provider (${platform.cfg.OAUTH_ISSUER}) as ${DEMO_ADMIN_EMAIL} or another member`
      : '  Sign-in is not configured: set DASHBOARD_CLIENT_SECRET for the dashboard client at OAUTH_ISSUER (docs/dashboard.md)';
  console.log(`
The platform is up (${((Date.now() - started) / 1000).toFixed(1)} s).
  REST API      ${api}
  GraphQL       ${platform.gatewayUrl}
  Media host    ${platform.cfg.MEDIA_URL}
  Embedded      ${platform.infrastructure.embedded.join('; ') || 'none (configured from the environment)'}
  ml-worker     ${mlWorkerReady ? 'ready' : 'loading its models: selfie search answers 503 (Retry-After) until it is ready'}

Participant page ${pageUrl}

Organisation dashboard: ${dashboardUrl(platform.cfg)}
${signIn}
${demo.created ? `\nDemo API key (shown once; kept for this machine in ${dataDir}/demo-api-key):\n  ${key}\n` : `\nDemo API key: in ${dataDir}/demo-api-key\n`}
Try it:
  curl -s -H 'X-API-Key: ${key}' ${api}/${demo.orgId}/events
  curl -s -H 'X-API-Key: ${key}' ${base}/details
  curl -s -H 'X-API-Key: ${key}' '${base}/images?page=1&page_size=32'
  curl -s -H 'X-API-Key: ${key}' ${base}/bibs/${DEMO_BIBS[0]}
  curl -s -H 'X-API-Key: ${key}' ${base}/timeline/days
  curl -s -H 'X-API-Key: ${key}' '${base}/timeline/images?from=0&to=2000000000'
  curl -s -H 'X-API-Key: ${key}' ${base}/ping${
    demo.selfieFile
      ? `
  curl -s -H 'X-API-Key: ${key}' -F file=@${demo.selfieFile} ${base}/faces
  curl -s -H 'X-API-Key: ${key}' -H 'content-type: application/json' -d '{"method":"bib","identifier":"${DEMO_BIBS[0]}"}' ${base}/original-photos`
      : ''
  }
  curl -s -H "Authorization: Bearer $(npm run -s cli -- mint-token --email organiser@demo.example --scopes events:read,events:write)" ${api}/account

Press Ctrl-C to stop.`);
  if (!mlWorkerReady) {
    void mlWorker.then(() => {
      if (mlWorkerReady)
        console.log(
          `[platform] ml-worker ready (${((Date.now() - started) / 1000).toFixed(1)} s after start): selfie search is on`,
        );
    });
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping services and infrastructure...`);
    await platform.stop();
    console.log('Stopped. Data is kept for the next start.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * The demo event's participant page. The browser key travels in the fragment, which the browser
 * never sends to a server; its allowlist holds `localhost`, hence that host rather than 127.0.0.1.
 */
function participantPageUrl(restUrl: string, orgId: number, eventId: number, browserKey: string | null): string {
  const url = new URL(`/events/${orgId}/${eventId}`, restUrl);
  url.hostname = 'localhost';
  return browserKey ? `${url.href}#key=${encodeURIComponent(browserKey)}` : url.href;
}

main().catch((err) => {
  console.error(`Could not start the platform: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
