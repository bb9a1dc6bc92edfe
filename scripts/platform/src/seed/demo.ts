import { ContentVersionMirror, hashApiKey, REPO_ROOT } from '@em/core';
import { Event, Orm, SqlEventsRepository, SqlPhotosRepository, SqlVideosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { buildSlideshow } from './slideshow';
import { administrationServices, AdministrationServices, PLATFORM_OPERATOR } from '@em/subgraph-events';
import { LocalAccountsService, MemorySignInCounters, SignInDevices, SignInThrottle } from '@em/identity';
import { SqlAccountsRepository, SqlLocalCredentialsRepository } from '@em/core/data';
import { randomBytes } from 'node:crypto';
import { PipelineService } from '@em/subgraph-images';
import { VideosService } from '@em/subgraph-media';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { writePrivateFile } from '../platform/private-files';

export const DEMO_ORG_SLUG = 'demo-running-club';
export const DEMO_EVENT_SLUG = 'demo-city-10k';
/** The demo organiser: admin of the demo organisation and platform administrator. */
export const DEMO_ADMIN_EMAIL = 'organiser@demo.example';

/** The sample photos that ship inside the @vladmandic/face-api package. */
export function demoPhotoFiles(): string[] {
  const dir = path.join(
    path.dirname(require.resolve('@vladmandic/face-api/package.json', { paths: [REPO_ROOT] })),
    'demo',
  );
  return readdirSync(dir)
    .filter((f) => /^sample\d+\.jpg$/i.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/** BIB numbers on the demo's drawn race photos: BIB search finds them once the worker read them. */
export const DEMO_BIBS = ['1207', '2315'];

/** The demo's start list: the runners of the drawn photos, by their bibs. */
const DEMO_START_LIST = `bib,first_name,last_name,team\n${DEMO_BIBS[0]},Alex,Martin,Demo Running Club\n${DEMO_BIBS[1]},Sam,Rivera,\n`;

/** A simple drawn race photo (a runner's bib on a shirt), so the demo has bibs to search for. */
async function drawnRacePhoto(bib: string, hue: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1800" height="1200">
    <rect width="1800" height="1200" fill="hsl(${hue},35%,55%)"/>
    <rect x="0" y="900" width="1800" height="300" fill="#777"/>
    <circle cx="900" cy="260" r="130" fill="#e0b48f"/>
    <rect x="640" y="400" width="520" height="560" rx="60" fill="hsl(${(hue + 180) % 360},60%,40%)"/>
    <rect x="700" y="520" width="400" height="260" fill="white" stroke="#333" stroke-width="6"/>
    <text x="900" y="705" font-size="150" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" text-anchor="middle" fill="black">${bib}</text>
  </svg>`;
  return sharp(Buffer.from(svg))
    .jpeg({ quality: 90 })
    .withExif({ IFD2: { DateTimeOriginal: `2026:05:17 09:${bib.slice(-2)}:00` } })
    .toBuffer();
}

/**
 * A sample photo as taken after the demo race: the samples were shot on other days (2014-2018), which would spread
 * the participant page's time strip over years; the demo's copy carries the race morning's clock instead (10:02,
 * 10:09, ...: after the drawn finish-line photos), and no other metadata.
 */
async function onRaceMorning(photo: Buffer, index: number): Promise<Buffer> {
  const minutes = 2 + 7 * index;
  const clock = `${String(10 + Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return sharp(photo)
    .jpeg({ quality: 92 })
    .withExif({ IFD2: { DateTimeOriginal: `2026:05:17 ${clock}:00` } })
    .toBuffer();
}

export interface DemoSeed {
  orgId: number;
  eventId: number;
  /** The demo key, readable from `<dataDir>/demo-api-key` on this machine only. */
  apiKey: string | null;
  created: boolean;
  /** The participant page's browser key (host allowlist: `localhost`), from `<dataDir>/demo-browser-key`. */
  browserKey?: string | null;
  /** A face cut out of a demo photo, to try face search with. */
  selfieFile?: string | null;
  /** The demo organiser's password at the embedded identity provider (`<dataDir>/demo-organiser-password`), when it runs. */
  organiserPassword?: string | null;
}

/**
 * The demo: an organisation, an admin account, an event with every flag on, an API key, and the
 * sample photos imported (originals into S3) and queued for processing. Runs once; later starts
 * find it and re-queue photos that were not processed yet.
 */
export async function seedDemo(opts: {
  orm: Orm;
  store: ObjectStore;
  pipeline: PipelineService;
  videos: VideosService;
  redis: ContentVersionMirror;
  dataDir: string;
  log: (l: string) => void;
  /** The embedded identity provider runs: the demo organiser gets a password for the dashboard. */
  localSignIn?: boolean;
}): Promise<DemoSeed> {
  const em = opts.orm.em.fork();
  const keyFile = path.join(opts.dataDir, 'demo-api-key');
  // Through the administration services, as an organiser would with the CLI.
  const admin = administrationServices({
    em: () => em,
    store: opts.store,
    jobs: () => {
      throw new Error('the demo seed queues no deletions');
    },
    maxApiKeysPerOrganisation: 100,
    redis: opts.redis,
  });
  let org = await admin.repos.organisations.findBySlug(DEMO_ORG_SLUG);
  let created = false;
  let apiKey: string | null = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null;

  if (!org) {
    created = true;
    // The demo's organiser is also the platform administrator (it may create more organisations).
    const organiser = await admin.account.grantPlatformAdmin(PLATFORM_OPERATOR, DEMO_ADMIN_EMAIL);
    org = await admin.organisations.create(
      PLATFORM_OPERATOR,
      { name: 'Demo Running Club', slug: DEMO_ORG_SLUG },
      organiser.id,
    );
    await admin.eventAdmin.create(PLATFORM_OPERATOR, org.id, {
      name: 'Demo City 10K',
      slug: DEMO_EVENT_SLUG,
      eventDate: '2026-05-17T09:00:00',
      status: 'active',
      enabled: true,
      bibSearch: true,
      selfieSearch: true,
      nameSearch: true,
      timelineSearch: true,
      videoSearch: true,
      videoSelfieSearch: true,
      timeZone: 'UTC',
      watermarkText: 'Demo City 10K',
    });
    apiKey = (await admin.keyService.create(org.id, { name: 'Demo key' })).rawKey;
    writePrivateFile(keyFile, `${apiKey}\n`);
    opts.log(`created the demo organisation (org_id ${org.id})`);
  }

  const event = (await admin.repos.events.findBySlug(org.id, DEMO_EVENT_SLUG))!;
  // The runners of the drawn photos, so that the demo's name search finds someone (imported as the CLI would).
  if (created)
    await admin.startLists.import(
      PLATFORM_OPERATOR,
      org.id,
      event.id,
      async () => Buffer.from(DEMO_START_LIST),
      'replace',
      false,
    );
  const browserKey = await ensureBrowserKey(admin, org.id, event.id, opts.dataDir);
  await opts.store.ensureBucket();
  // The demo goes through the real pipeline: import, then a worker job per photo. A later start finds the photos
  // there and imports none (drawing and hashing them again cost the restart a second before the services start).
  const photoFiles = demoPhotoFiles();
  const photosThere = (await new SqlPhotosRepository(opts.orm).tallyByStatus(event.id)).reduce(
    (n, t) => n + t.count,
    0,
  );
  if (photosThere < photoFiles.length + DEMO_BIBS.length) await importDemoPhotos(event, photoFiles, opts);
  await opts.pipeline.queuePending(event.id);
  if ((await new SqlVideosRepository(opts.orm).listByEvent(event.id)).length === 0)
    await addDemoVideo(event, opts.videos);
  const organiserPassword = opts.localSignIn ? await ensureOrganiserPassword(opts.orm, opts.dataDir) : null;
  return { orgId: org.id, eventId: event.id, apiKey, created, browserKey, organiserPassword };
}

/** The sample photos and two drawn finish-line photos with the demo's bibs, imported (duplicates are skipped). */
async function importDemoPhotos(
  event: Event,
  photoFiles: string[],
  opts: { pipeline: PipelineService; log: (l: string) => void },
): Promise<void> {
  for (const [i, file] of photoFiles.entries()) {
    const outcome = await opts.pipeline.importFile(event, await onRaceMorning(readFileSync(file), i), {
      fileName: path.basename(file),
      source: 'seed',
      photographerName: 'Demo photographer',
    });
    if (outcome.status === 'rejected') opts.log(`demo photo ${path.basename(file)} rejected: ${outcome.reason}`);
  }
  for (const [i, bib] of DEMO_BIBS.entries()) {
    await opts.pipeline.importFile(event, await drawnRacePhoto(bib, 120 + i * 70), {
      fileName: `finish-line-${bib}.jpg`,
      source: 'seed',
      photographerName: 'Demo photographer',
    });
  }
}

/**
 * The demo organiser's dashboard password: random, set once and kept for this machine in
 * `<dataDir>/demo-organiser-password`; set again when that file is missing.
 */
async function ensureOrganiserPassword(orm: Orm, dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'demo-organiser-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const em = orm.em.fork();
  // The seed never signs anyone in: its throttle and devices are never consulted.
  const accounts = new LocalAccountsService(
    new SqlAccountsRepository(() => em),
    new SqlLocalCredentialsRepository(() => em),
    new SignInThrottle(new MemorySignInCounters(), { perAccount: 1, perAddress: 1, windowSeconds: 1 }),
    new SignInDevices(randomBytes(32).toString('base64url')),
    { setPasswordLinkHours: 1 },
  );
  const password = randomBytes(12).toString('base64url');
  await accounts.setPasswordAsOperator(DEMO_ADMIN_EMAIL, password);
  writePrivateFile(file, `${password}\n`);
  return password;
}

/** Hosts the demo's participant page is opened from (an IP in Origin matches nothing, so a name). */
export const DEMO_PAGE_HOSTS = ['localhost'];

/**
 * The participant page's key: read-only, limited to the page's event, and whose host allowlist holds
 * the page's host, so browsers on other sites are refused. It is public by nature (it is in the
 * page's link); kept for this machine in `<dataDir>/demo-browser-key`, and made again when that file
 * is missing or holds a key of an older release that reached every event (that key is deleted).
 */
async function ensureBrowserKey(
  admin: AdministrationServices,
  orgId: number,
  eventId: number,
  dataDir: string,
): Promise<string> {
  const file = path.join(dataDir, 'demo-browser-key');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    const key = await admin.repos.apiKeys.findByHash(hashApiKey(stored));
    if (key?.eventIds && key.eventIds.length === 1 && key.eventIds[0] === eventId) return stored;
    if (key) await admin.keyService.delete(key.orgId, key.id);
  }
  const { rawKey } = await admin.keyService.create(orgId, {
    name: 'Demo participant page (browser key)',
    allowedHosts: DEMO_PAGE_HOSTS,
    readOnly: true,
    eventIds: [eventId],
  });
  writePrivateFile(file, `${rawKey}\n`);
  return rawKey;
}

/**
 * The demo's video: 30 s at 720p where the people of the sample photos appear at known moments
 * (each photo on screen for 4 s, with empty frames between), so selfie clipping has something to cut.
 */
async function addDemoVideo(event: Event, videos: VideosService): Promise<void> {
  const [first, second, third] = demoPhotoFiles()
    .slice(-3)
    .map((f) => readFileSync(f));
  const dir = await mkdtemp(path.join(tmpdir(), 'em-demo-video-'));
  try {
    const file = path.join(dir, 'finish-line-camera.mp4');
    await buildSlideshow(
      [
        { image: null, seconds: 4 },
        { image: first, seconds: 4 },
        { image: null, seconds: 5 },
        { image: second, seconds: 4 },
        { image: null, seconds: 5 },
        { image: third, seconds: 4 },
        { image: null, seconds: 4 },
      ],
      file,
    );
    await videos.addToEvent(event, file, 'finish-line-camera.mp4', 'finish-line-camera');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Waits until the demo photos are processed, then publishes them (go-live). */
export async function publishDemo(
  pipeline: PipelineService,
  eventId: number,
  timeoutMs = 600_000,
): Promise<{ live: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await pipeline.progress(eventId)).open === 0) break;
    if (Date.now() > deadline) throw new Error(`demo photos still processing after ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await pipeline.publish(eventId);
  const { live, failed } = await pipeline.progress(eventId);
  return { live, failed };
}

/** The demo event's cover (what the participant page shows behind its name): the large preview of the first sample photo. */
export async function setDemoCover(orm: Orm, eventId: number): Promise<void> {
  const events = new SqlEventsRepository(orm);
  if ((await events.findById(eventId))?.coverImageKey) return;
  const largeKey = await new SqlPhotosRepository(orm).largeKeyOfFile(eventId, path.basename(demoPhotoFiles()[0]));
  if (largeKey) await events.update(eventId, { coverImageKey: largeKey });
}

/**
 * A selfie to try face search with: the largest face the worker found on the demo photos, cut out
 * of its original with a margin, written to `<dataDir>/demo-selfie.jpg`. Null when none was found.
 */
export async function writeDemoSelfie(
  orm: Orm,
  store: ObjectStore,
  eventId: number,
  dataDir: string,
): Promise<string | null> {
  const face = await new SqlPhotosRepository(orm).largestPublishedFace(eventId);
  if (!face) return null;
  const original = await sharp(await store.getBuffer(face.originalKey))
    .rotate()
    .toBuffer();
  const { width, height } = await sharp(original).metadata();
  const left = Math.max(0, Math.round((face.box.x - face.box.width * 0.4) * width));
  const top = Math.max(0, Math.round((face.box.y - face.box.height * 0.4) * height));
  const selfie = await sharp(original)
    .extract({
      left,
      top,
      width: Math.min(width - left, Math.round(face.box.width * 1.8 * width)),
      height: Math.min(height - top, Math.round(face.box.height * 1.8 * height)),
    })
    .jpeg({ quality: 90 })
    .toBuffer();
  const file = path.join(dataDir, 'demo-selfie.jpg');
  writePrivateFile(file, selfie);
  return file;
}
