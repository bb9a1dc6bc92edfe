import { dashboardUrl, DEFAULT_PORTS, embeddedIdentityIssuer, ensureEmbeddedIssuer } from '@em/core';
import { objectKeys } from '@em/core/storage';
import { startEmbeddedPostgres } from '../embedded/postgres';
import { startEmbeddedRedis } from '../embedded/redis';
import { startEmbeddedS3 } from '../embedded/s3';
import { loadOrCreateSecrets } from './secrets';
import { ensureSystemFfmpeg } from './system-ffmpeg';

/** An upload not completed within this time is abandoned: its object and parts are removed (a lifecycle rule). */
const ABANDONED_UPLOAD_HOURS = 24;

/** The dashboard's origin, which uploads photos straight to the bucket (localhost and 127.0.0.1 both, when local). */
function dashboardOrigins(env: NodeJS.ProcessEnv): string[] {
  const origin = new URL(
    dashboardUrl({ DASHBOARD_URL: env.DASHBOARD_URL, REST_PORT: Number(env.REST_PORT || DEFAULT_PORTS.rest) }),
  ).origin;
  const local = /^(https?:\/\/)(localhost|127\.0\.0\.1)(:\d+)?$/.exec(origin);
  if (!local) return [origin];
  return [`${local[1]}localhost${local[3] ?? ''}`, `${local[1]}127.0.0.1${local[3] ?? ''}`];
}

export interface InfrastructurePorts {
  postgres: number;
  redis: number;
  s3: number;
}

export interface Infrastructure {
  /** Variables the services need to reach Postgres, Redis and S3 (and the principal secret). */
  env: Record<string, string>;
  /** Which parts run embedded (the others come from DATABASE_URL / REDIS_URL / S3_*). */
  embedded: string[];
  stop(): Promise<void>;
}

/**
 * Postgres, Redis and S3: the ones configured in the environment are used as they are, the
 * others run embedded with their data under `dataDir`.
 */
export async function startInfrastructure(opts: {
  dataDir: string;
  ports?: Partial<InfrastructurePorts>;
  env?: NodeJS.ProcessEnv;
  log: (line: string) => void;
}): Promise<Infrastructure> {
  const env = opts.env ?? process.env;
  const ports = { postgres: DEFAULT_PORTS.postgres, redis: DEFAULT_PORTS.redis, s3: DEFAULT_PORTS.s3, ...opts.ports };
  const secrets = loadOrCreateSecrets(opts.dataDir);
  ensureSystemFfmpeg(opts.log);
  const stops: Array<() => Promise<void>> = [];
  const embedded: string[] = [];
  const out: Record<string, string> = {
    DATA_DIR: opts.dataDir,
    PRINCIPAL_SECRET: env.PRINCIPAL_SECRET || secrets.principalSecret,
  };

  try {
    // Postgres, Redis and S3 need nothing of each other: started together (a restart waits for the slowest, not the sum).
    const started = await Promise.allSettled([
      (async () => {
        if (env.DATABASE_URL) out.DATABASE_URL = env.DATABASE_URL;
        else {
          const pg = await startEmbeddedPostgres({
            dataDir: opts.dataDir,
            port: ports.postgres,
            database: 'eventmedia',
            password: secrets.postgresPassword,
            log: (l) => opts.log(`[postgres] ${l}`),
          });
          stops.push(() => pg.stop());
          embedded.push(`Postgres on 127.0.0.1:${ports.postgres}`);
          out.DATABASE_URL = pg.url;
        }
      })(),
      (async () => {
        if (env.REDIS_URL) out.REDIS_URL = env.REDIS_URL;
        else {
          const redis = await startEmbeddedRedis({
            dataDir: opts.dataDir,
            port: ports.redis,
            password: secrets.redisPassword,
            log: (l) => opts.log(`[redis] ${l}`),
          });
          stops.push(() => redis.stop());
          embedded.push(`Redis on 127.0.0.1:${ports.redis}`);
          out.REDIS_URL = redis.url;
        }
      })(),
      (async () => {
        if (env.S3_ENDPOINT) {
          for (const k of [
            'S3_ENDPOINT',
            'S3_REGION',
            'S3_ACCESS_KEY_ID',
            'S3_SECRET_ACCESS_KEY',
            'S3_BUCKET',
            'S3_FORCE_PATH_STYLE',
            'MEDIA_URL',
          ]) {
            if (env[k]) out[k] = env[k]!;
          }
        } else {
          const bucket = env.S3_BUCKET || 'event-media';
          const s3 = await startEmbeddedS3({
            dataDir: opts.dataDir,
            port: ports.s3,
            bucket,
            credentials: { accessKeyId: secrets.s3AccessKeyId, secretAccessKey: secrets.s3SecretAccessKey },
            publicPrefix: objectKeys.publicPrefix,
            corsOrigins: dashboardOrigins(env),
            abandonedUploads: { prefix: objectKeys.uploadsPrefix, maxAgeMs: ABANDONED_UPLOAD_HOURS * 3600_000 },
          });
          stops.push(() => s3.stop());
          embedded.push(`S3 (and media host) on ${s3.endpoint}`);
          Object.assign(out, {
            S3_ENDPOINT: s3.endpoint,
            S3_REGION: 'us-east-1',
            S3_ACCESS_KEY_ID: secrets.s3AccessKeyId,
            S3_SECRET_ACCESS_KEY: secrets.s3SecretAccessKey,
            S3_BUCKET: bucket,
            S3_FORCE_PATH_STYLE: 'true',
          });
          if (env.MEDIA_URL) out.MEDIA_URL = env.MEDIA_URL;
        }
      })(),
    ]);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const listed = ['Postgres', 'Redis', 'S3'];
    embedded.sort((a, b) => listed.findIndex((n) => a.startsWith(n)) - listed.findIndex((n) => b.startsWith(n)));

    if (!env.OAUTH_JWKS_URL && !env.OAUTH_JWKS_FILE) {
      const issuer = await ensureEmbeddedIssuer(opts.dataDir);
      out.OAUTH_JWKS_FILE = issuer.jwksFile;
      embedded.push('OAuth issuer (keys in oauth/; mint tokens with npm run cli -- mint-token)');
      if (!env.OAUTH_ISSUER) {
        // No identity provider configured: the embedded OpenID provider signs with the same key.
        const identityPort = Number(env.IDENTITY_PORT || DEFAULT_PORTS.identity);
        out.OAUTH_ISSUER = embeddedIdentityIssuer({
          IDENTITY_ISSUER: env.IDENTITY_ISSUER,
          IDENTITY_PORT: identityPort,
        });
        out.IDENTITY_PORT = String(identityPort);
        out.IDENTITY_COOKIE_SECRET = secrets.identityCookieSecret;
        out.DASHBOARD_CLIENT_SECRET = env.DASHBOARD_CLIENT_SECRET || secrets.dashboardClientSecret;
        embedded.push(`OpenID provider at ${out.OAUTH_ISSUER} (local accounts; npm run cli -- set-password --email E)`);
      }
    }
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }

  return {
    env: out,
    embedded,
    async stop() {
      for (const stop of [...stops].reverse()) await stop().catch((e) => opts.log(`stop failed: ${e}`));
    },
  };
}
