import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defaultSelfieThreads, thisMachine } from './faces/selfie-threads-rule';

/** The repository root: core's folder's parent, found by package name so a bundled service finds it too. */
export const REPO_ROOT = path.resolve(path.dirname(require.resolve('@em/core/package.json')), '..');

/** Where the embedded default keeps its data, and the env file the launcher writes there. */
export const DEFAULT_DATA_DIR = path.join(REPO_ROOT, '.data');
export const PLATFORM_ENV_FILE = 'platform.env';

export const DEFAULT_PORTS = {
  rest: 8080,
  gateway: 4000,
  events: 4001,
  images: 4002,
  search: 4003,
  media: 4004,
  mlWorker: 4005,
  s3: 9000,
  postgres: 54329,
  redis: 6390,
  restOperator: 4006,
  identity: 4007,
} as const;

const port = z.coerce.number().int().min(0).max(65535);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default(DEFAULT_DATA_DIR),

  DATABASE_URL: z.string().url().default(`postgres://postgres:postgres@127.0.0.1:${DEFAULT_PORTS.postgres}/eventmedia`),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z.string().url().default(`redis://127.0.0.1:${DEFAULT_PORTS.redis}`),

  S3_ENDPOINT: z.string().url().default(`http://127.0.0.1:${DEFAULT_PORTS.s3}`),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).default('embedded-access-key'),
  S3_SECRET_ACCESS_KEY: z.string().min(1).default('embedded-secret-key'),
  S3_BUCKET: z.string().min(3).default('event-media'),
  S3_FORCE_PATH_STYLE: bool.default('true'),
  /** Public base URL of preview images and clips (a CDN in production); defaults to the bucket URL. */
  MEDIA_URL: z.string().url().optional(),
  /** Where clients reach S3 for presigned downloads when it differs from S3_ENDPOINT (an internal address). */
  S3_PUBLIC_ENDPOINT: z.string().url().optional(),
  /** Lifetime of presigned original-download links. */
  DOWNLOAD_URL_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(3600),

  /**
   * Shared secret that signs the principal the gateway forwards to subgraphs. No default: the
   * gateway and the subgraphs refuse to start without it (requirePrincipalSecret).
   */
  PRINCIPAL_SECRET: z.string().min(32).optional(),
  PRINCIPAL_TTL_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  /** Seconds an API key lookup is cached by the gateway (deactivation takes effect after this). */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  /**
   * Which proxies' X-Forwarded-For a service believes, in express's `trust proxy` syntax
   * ("loopback", a list of addresses/CIDRs, or a hop count). Unset, the REST adapter believes
   * none (a client never names its own address) and the gateway believes loopback (the adapter).
   */
  TRUST_PROXY: z.string().optional(),

  /** OAuth bearer tokens: issuer (`iss`) and audience (`aud`) they must carry. */
  OAUTH_ISSUER: z.string().min(1).default('urn:event-media:embedded-issuer'),
  OAUTH_AUDIENCE: z.string().min(1).default('event-media-api'),
  /** The issuer's JWKS: a URL in production, or the embedded issuer's file (written by npm start). */
  OAUTH_JWKS_URL: z.string().url().optional(),
  OAUTH_JWKS_FILE: z.string().optional(),
  /**
   * Where the REST adapter reaches OAUTH_ISSUER when the issuer's public URL does not lead there from inside (compose's
   * embedded provider: http://identity:4007): discovery, tokens and keys go there, browsers still to the public URL.
   */
  OAUTH_ISSUER_INTERNAL_URL: z.string().url().optional(),

  /**
   * The organisation dashboard (`/dashboard/` of the REST adapter) signs in at OAUTH_ISSUER with OpenID
   * Connect (authorization code + PKCE) as this confidential client. DASHBOARD_URL is its public
   * address (the redirect URI is `<DASHBOARD_URL>callback`); default `http://localhost:<REST_PORT>/dashboard/`.
   */
  DASHBOARD_URL: z.string().url().optional(),
  DASHBOARD_CLIENT_ID: z.string().min(1).default('event-media-dashboard'),
  DASHBOARD_CLIENT_SECRET: z.string().min(16).optional(),
  /** Scopes the dashboard asks for; an external provider must put `email` and `email_verified` in its access tokens. */
  DASHBOARD_SCOPES: z.string().default('openid email events:read events:write'),
  /** How long a dashboard session lasts at most (it also ends when its access token expires). */
  DASHBOARD_SESSION_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(8 * 3600),
  /** The embedded OpenID provider (`npm start` without an identity provider): its port and public issuer URL. */
  IDENTITY_PORT: port.default(DEFAULT_PORTS.identity),
  IDENTITY_ISSUER: z.string().url().optional(),
  /** Signs the embedded provider's cookies. */
  IDENTITY_COOKIE_SECRET: z.string().min(32).optional(),
  /** Failed sign-ins at the embedded provider per account, and per client address, in a window before it refuses (429). */
  SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
  SIGN_IN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(30),
  /** Sign-ins started (each kept in Redis while it lasts) per client address in the same window. */
  SIGN_IN_STARTS_PER_ADDRESS: z.coerce.number().int().min(1).default(120),
  SIGN_IN_FAILURE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(900),
  /**
   * Invitation e-mails of the embedded provider (a set-password link, or a note to sign in): an SMTP server as
   * `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://…:465`; unset, nothing is mailed
   * and the CLI prints the links.
   */
  SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:$/.test(new URL(v).protocol), 'SMTP_URL must be an smtp:// or smtps:// URL')
    .optional(),
  /**
   * Whether the embedded provider mails invitations, told to a process that holds no SMTP_URL itself (the events
   * subgraph under docker-compose); unset, SMTP_URL and IDENTITY_COOKIE_SECRET tell it (npm start).
   */
  INVITATIONS_MAILED: bool.optional(),
  /** The sender of invitation e-mails. */
  MAIL_FROM: z.string().min(3).max(200).default('Event media <no-reply@localhost>'),
  /** Invitation e-mails one organisation may send a day (its admins must not make the platform a spam relay). */
  INVITATION_MAILS_PER_DAY: z.coerce.number().int().min(1).default(200),
  /** How long a set-password link (invitation, reset) works. */
  SET_PASSWORD_LINK_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(72),

  /** Rate limits per API key or token, per window; face matching has its own, stricter budget. */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  RATE_LIMIT_READS: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_MATCHING: z.coerce.number().int().min(1).default(30),
  /**
   * A read-only (browser) key is shared by every visitor of the participant page: each client
   * address (an IPv6 /64) gets the budgets above, and all of them together at most these per window.
   */
  RATE_LIMIT_BROWSER_KEY_READS: z.coerce.number().int().min(1).default(30_000),
  RATE_LIMIT_BROWSER_KEY_MATCHING: z.coerce.number().int().min(1).default(600),
  /** API keys an organisation may hold (active or not). */
  MAX_API_KEYS_PER_ORG: z.coerce.number().int().min(1).max(1000).default(25),

  REST_PORT: port.default(DEFAULT_PORTS.rest),
  /** The public REST port's interface: loopback unless told otherwise (containers set 0.0.0.0). */
  REST_HOST: z.string().default('127.0.0.1'),
  /** The REST adapter's operator endpoints (/metrics, /health/*), on LISTEN_HOST: never on the public REST port. */
  REST_OPERATOR_PORT: port.default(DEFAULT_PORTS.restOperator),
  REST_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Uploads (photo import, selfies): largest file and most files in one request. */
  UPLOAD_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(50 * 1024 * 1024),
  UPLOAD_MAX_FILES: z.coerce.number().int().min(1).max(1000).default(100),
  /** Photos uploaded by a browser straight to the bucket: how long a presigned URL works. */
  UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
  /** A photo of this size or more goes up in parts of UPLOAD_PART_BYTES (S3's least part is 5 MiB). */
  UPLOAD_MULTIPART_THRESHOLD_BYTES: z.coerce
    .number()
    .int()
    .min(5 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  UPLOAD_PART_BYTES: z.coerce
    .number()
    .int()
    .min(5 * 1024 * 1024)
    .max(512 * 1024 * 1024)
    .default(8 * 1024 * 1024),
  /** Largest selfie accepted by face search and clipping (the spec recommends 5 MB; phones send more). */
  SELFIE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(15 * 1024 * 1024),
  /** How long a face search waits for the ml-worker to embed a selfie before answering 500 (nothing recorded; retry). */
  SELFIE_EMBED_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /**
   * Most faces a search or media process holds in its in-memory face indexes, all events together
   * (~0.7 KB each); past it, the indexes searched longest ago are dropped (and reloaded when searched).
   */
  FACE_INDEX_MAX_FACES: z.coerce.number().int().min(1000).default(1_000_000),
  /** Most photos one face search keeps (best first). */
  FACE_SEARCH_MAX_PHOTOS: z.coerce.number().int().min(1).max(100_000).default(5000),
  GATEWAY_PORT: port.default(DEFAULT_PORTS.gateway),
  /** Where the gateway, subgraphs and the ml-worker's operator endpoints listen (0.0.0.0 in containers). */
  LISTEN_HOST: z.string().default('127.0.0.1'),
  GATEWAY_URL: z.string().url().optional(),
  EVENTS_PORT: port.default(DEFAULT_PORTS.events),
  IMAGES_PORT: port.default(DEFAULT_PORTS.images),
  SEARCH_PORT: port.default(DEFAULT_PORTS.search),
  MEDIA_PORT: port.default(DEFAULT_PORTS.media),
  /** The ml-worker's operator endpoints (/metrics, /health/*); it serves nothing else. */
  ML_WORKER_PORT: port.default(DEFAULT_PORTS.mlWorker),
  /** Subgraph addresses for the gateway; default to the local ports above. */
  EVENTS_URL: z.string().url().optional(),
  IMAGES_URL: z.string().url().optional(),
  SEARCH_URL: z.string().url().optional(),
  MEDIA_SUBGRAPH_URL: z.string().url().optional(),
  SUPERGRAPH_PATH: z.string().default(path.join(REPO_ROOT, 'supergraph.graphql')),

  /** GraphQL operation limits, checked by the gateway before validation and query planning. */
  GRAPHQL_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(2 * 1024 * 1024),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(50).default(2000),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(15),
  GRAPHQL_MAX_ROOT_FIELDS: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(20),
  /** Failed authentications one client address may make per window before it gets 429s. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(120),
  AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * Largest photo or selfie accepted, in pixels (width x height): a small compressed file can decode
   * to gigabytes. Also the pixel limit of every image decode (sharp's limitInputPixels).
   */
  IMPORT_MAX_PIXELS: z.coerce.number().int().min(1_000_000).max(268_402_689).default(50_000_000),
  /** Longest video accepted (its container's duration): every second of it is decoded and searched for faces. */
  VIDEO_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(12 * 3600),
  /** How often the ml-worker deletes clips past their event's retention from storage. */
  CLIP_RETENTION_SWEEP_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(300),
  /**
   * Photos one ml-worker process works on at once; each has its own OCR thread (~200 MB), so the
   * dominant step uses every core. Default: the machine's cores.
   */
  PHOTO_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(availableParallelism()),
  /**
   * Parts one video is indexed in at once: each part but the first runs on its own thread with its
   * own face models (~150 MB, only while a video is indexed). Default: the cores (at most 4).
   */
  VIDEO_INDEX_PARTS: z.coerce.number().int().min(1).max(16).default(Math.min(4, availableParallelism())),
  /**
   * Selfie threads of one ml-worker process: concurrent face searches are embedded side by side, each
   * thread with its own face models (~280-530 MB of RSS measured). Default: the cores when 4 GB are
   * free, else half the cores; at most 4 (`defaultSelfieThreads`).
   */
  SELFIE_THREADS: z.coerce.number().int().min(1).max(8).default(defaultSelfieThreads(thisMachine()).threads),
  /**
   * Nice levels the ml-worker's photo and video work runs below its selfie threads (Linux: per
   * thread). Off by default: since selfie threads take their jobs themselves it showed no gain for
   * selfies, and an ingest on cores shared with other processes took ~1.7x as long.
   */
  ML_BACKGROUND_NICE: z.coerce.number().int().min(0).max(19).default(0),
});

type RawConfig = z.infer<typeof schema>;

export interface Config extends Omit<RawConfig, 'MEDIA_URL' | 'GATEWAY_URL'> {
  MEDIA_URL: string;
  GATEWAY_URL: string;
  subgraphUrls: Record<SubgraphName, string>;
}

export type SubgraphName = 'events' | 'images' | 'search' | 'media';

/** Reads KEY=VALUE lines (the launcher's env file); blank lines and # comments are skipped. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    if (eq > 0) out[trimmed.slice(0, eq).trim()] = trimmed.slice(eq + 1).trim();
  }
  return out;
}

/**
 * Builds the typed configuration from an environment. Variables that are not set fall back to the
 * embedded default's env file (`.data/platform.env`, written by `npm start`) and then to defaults.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = env.DATA_DIR ?? DEFAULT_DATA_DIR;
  const envFile = path.join(dataDir, PLATFORM_ENV_FILE);
  const fromFile = existsSync(envFile) ? parseEnvFile(readFileSync(envFile, 'utf8')) : {};
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') merged[k] = v;

  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const raw = parsed.data;
  const local = (p: number) => `http://127.0.0.1:${p}/graphql`;
  return {
    ...raw,
    MEDIA_URL: (raw.MEDIA_URL ?? `${raw.S3_ENDPOINT.replace(/\/$/, '')}/${raw.S3_BUCKET}`).replace(/\/$/, ''),
    GATEWAY_URL: raw.GATEWAY_URL ?? local(raw.GATEWAY_PORT),
    subgraphUrls: {
      events: raw.EVENTS_URL ?? local(raw.EVENTS_PORT),
      images: raw.IMAGES_URL ?? local(raw.IMAGES_PORT),
      search: raw.SEARCH_URL ?? local(raw.SEARCH_PORT),
      media: raw.MEDIA_SUBGRAPH_URL ?? local(raw.MEDIA_PORT),
    },
  };
}

/** The dashboard's public address, ending in `/` (DASHBOARD_URL, else the REST port on localhost). */
export function dashboardUrl(cfg: Pick<Config, 'DASHBOARD_URL' | 'REST_PORT'>): string {
  const url = cfg.DASHBOARD_URL ?? `http://localhost:${cfg.REST_PORT}/dashboard/`;
  return url.endsWith('/') ? url : `${url}/`;
}

/** Invitations are mailed by the embedded provider: it runs (its cookie secret is set) and SMTP is configured. */
export const invitationsMailed = (cfg: Pick<Config, 'SMTP_URL' | 'IDENTITY_COOKIE_SECRET' | 'INVITATIONS_MAILED'>) =>
  cfg.INVITATIONS_MAILED ?? (!!cfg.SMTP_URL && !!cfg.IDENTITY_COOKIE_SECRET);

/** The embedded OpenID provider's issuer (IDENTITY_ISSUER, else its port on localhost), without a trailing `/`. */
export function embeddedIdentityIssuer(cfg: Pick<Config, 'IDENTITY_ISSUER' | 'IDENTITY_PORT'>): string {
  return (cfg.IDENTITY_ISSUER ?? `http://localhost:${cfg.IDENTITY_PORT}`).replace(/\/$/, '');
}

let cached: Config | undefined;

/** The process's configuration, read once. Services run in UTC so datetimes format the same everywhere. */
export function config(): Config {
  if (!cached) {
    process.env.TZ = 'UTC';
    cached = loadConfig();
  }
  return cached;
}

/** Every variable the configuration reads (deployment files are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

/**
 * The principal secret of a service that signs or verifies principals (the gateway, every subgraph).
 * There is no fallback: without it the service must not start. Other processes (CLI, migrate) never ask.
 */
export function requirePrincipalSecret(cfg: Pick<Config, 'PRINCIPAL_SECRET'>, service: string): string {
  if (cfg.PRINCIPAL_SECRET) return cfg.PRINCIPAL_SECRET;
  throw new Error(
    `PRINCIPAL_SECRET is not set: the ${service} signs or verifies the gateway's principal and does not start without it. ` +
      'Set the same random value of 32+ characters in the gateway and every subgraph (npm start writes one into <DATA_DIR>/secrets.json).',
  );
}
