import 'reflect-metadata';
import { AccountsRepository, SqlAccountsRepository } from '../accounts.repository';
import { ApiKeysRepository, NewApiKey, SqlApiKeysRepository } from '../api-keys.repository';
import { newId } from '../../ids';
import type { PageRequest } from '../../pagination';
import { judgeBibRead, rejudgedReads, startListView } from '../../bibs/bib-read-rule';
import { ClipRequestsRepository, SqlClipRequestsRepository } from '../clip-requests.repository';
import { EventSettings, EventsRepository, SqlEventsRepository } from '../events.repository';
import { FaceSearchesRepository, NewFaceSearch, SqlFaceSearchesRepository } from '../face-searches.repository';
import { OrganisationsRepository, SqlOrganisationsRepository } from '../organisations.repository';
import { MembershipsRepository, SqlMembershipsRepository } from '../memberships.repository';
import { NewPhoto, PhotosRepository, ProcessedPhoto, SqlPhotosRepository } from '../photos.repository';
import { InMemoryAccountsRepository } from '../fakes/accounts.fake';
import { InMemoryApiKeysRepository } from '../fakes/api-keys.fake';
import { InMemoryEventsRepository } from '../fakes/events.fake';
import { InMemoryFaceSearchesRepository } from '../fakes/face-searches.fake';
import { InMemoryOrganisationsRepository } from '../fakes/organisations.fake';
import { InMemoryPhotosRepository } from '../fakes/photos.fake';
import { NewVideo, SqlVideosRepository, VideosRepository } from '../videos.repository';
import { InMemoryClipRequestsRepository } from '../fakes/clip-requests.fake';
import { InMemoryMembershipsRepository } from '../fakes/memberships.fake';
import { InMemoryVideosRepository } from '../fakes/videos.fake';
import { AuditLogRepository, SqlAuditLogRepository } from '../audit-log.repository';
import { InMemoryAuditLogRepository } from '../fakes/audit-log.fake';
import { startTestDatabase, TestDatabase } from './test-database';

// Each repository's contract, run against its SQL class on a real Postgres and against the in-memory
// fake the service tests use: a fake that drifts from SQL fails here, not in production.

interface World {
  organisations: OrganisationsRepository;
  events: EventsRepository;
  photos: PhotosRepository;
  faceSearches: FaceSearchesRepository;
  apiKeys: ApiKeysRepository;
  accounts: AccountsRepository;
  memberships: MembershipsRepository;
  videos: VideosRepository;
  clipRequests: ClipRequestsRepository;
  audit: AuditLogRepository;
}

let database: TestDatabase;
const WORLDS: Array<[string, () => World]> = [
  [
    'SQL on Postgres',
    () => {
      const { orm } = database;
      return {
        organisations: new SqlOrganisationsRepository(orm),
        events: new SqlEventsRepository(orm),
        photos: new SqlPhotosRepository(orm),
        faceSearches: new SqlFaceSearchesRepository(orm),
        apiKeys: new SqlApiKeysRepository(orm),
        accounts: new SqlAccountsRepository(orm),
        memberships: new SqlMembershipsRepository(orm),
        videos: new SqlVideosRepository(orm),
        clipRequests: new SqlClipRequestsRepository(orm),
        audit: new SqlAuditLogRepository(orm),
      };
    },
  ],
  [
    'in-memory fake',
    () => {
      const events = new InMemoryEventsRepository();
      const organisations = new InMemoryOrganisationsRepository();
      const accounts = new InMemoryAccountsRepository();
      const videos = new InMemoryVideosRepository(events);
      return {
        organisations,
        events,
        photos: new InMemoryPhotosRepository(events),
        faceSearches: new InMemoryFaceSearchesRepository(),
        apiKeys: new InMemoryApiKeysRepository(),
        accounts,
        memberships: new InMemoryMembershipsRepository(accounts, organisations),
        videos,
        clipRequests: new InMemoryClipRequestsRepository(events, videos),
        audit: new InMemoryAuditLogRepository(),
      };
    },
  ],
];

beforeAll(async () => {
  database = await startTestDatabase();
}, 180_000);

afterAll(async () => {
  await database?.stop();
});

let unique = 0;
const slug = (prefix: string) => `${prefix}-${process.pid}-${++unique}`;

function settings(overrides: Partial<EventSettings> = {}): EventSettings {
  return {
    name: 'City 10K',
    slug: slug('event'),
    eventDate: null,
    status: 'draft',
    enabled: true,
    bibSearch: true,
    selfieSearch: true,
    nameSearch: false,
    timelineSearch: true,
    videoSearch: false,
    videoSelfieClipping: false,
    confidenceThreshold: null,
    timeZone: 'UTC',
    watermarkText: null,
    coverImageKey: null,
    videoSampleFps: 1,
    clipMaxGapSeconds: 4,
    clipMinSegmentSeconds: 1,
    clipPaddingStartSeconds: 1,
    clipPaddingEndSeconds: 1,
    clipMaxDurationSeconds: 60,
    clipRetentionHours: null,
    ...overrides,
  };
}

/** A fresh organisation and event (each test its own, so one database serves every test). */
async function anEvent(world: World, overrides: Partial<EventSettings> = {}) {
  const organisation = await world.organisations.create({ name: 'Runners', slug: slug('org') });
  const event = await world.events.create(organisation.id, settings(overrides));
  return { orgId: organisation.id, eventId: event.id };
}

function newPhoto(eventId: number, fields: Partial<NewPhoto> = {}): NewPhoto {
  const id = newId();
  return {
    id,
    eventId,
    contentHash: newId(),
    originalKey: `originals/${eventId}/${id}.jpg`,
    originalFileName: `${id}.jpg`,
    mimeType: 'image/jpeg',
    fileSize: 1000,
    width: 3000,
    height: 2000,
    capturedAt: null,
    photographerName: null,
    source: 'upload',
    ...fields,
  };
}

const FACE = {
  embedding: Buffer.alloc(512, 1),
  descriptorVersion: 4,
  quality: 0.5,
  score: 0.9,
  box: { x: 1, y: 2, width: 30, height: 40 },
};

function processed(fields: Partial<ProcessedPhoto> = {}): ProcessedPhoto {
  return {
    largeKey: `large/${newId()}.jpg`,
    largeWidth: 1600,
    largeHeight: 1067,
    thumbnailKey: `thumbs/${newId()}.jpg`,
    width: 3000,
    height: 2000,
    processedAt: new Date('2026-05-17T12:00:00Z'),
    stepErrors: null,
    publishAt: new Date('2026-05-17T12:00:00Z'),
    bibs: [],
    faces: [],
    ...fields,
  };
}

/** Imports and processes a photo (published unless `publishAt` is null); returns its id. */
async function aPhoto(
  world: World,
  eventId: number,
  photo: Partial<NewPhoto> = {},
  result: Partial<ProcessedPhoto> = {},
): Promise<string> {
  const row = newPhoto(eventId, photo);
  await world.photos.insert(row);
  await world.photos.saveProcessed(row.id, eventId, processed(result));
  return row.id;
}

const at = (iso: string) => new Date(iso);
/** The page starting at `offset` (the repositories read offset and size; the page number is the API's). */
const pageAt = (offset: number, pageSize: number): PageRequest => ({
  page: Math.floor(offset / pageSize) + 1,
  offset,
  pageSize,
});
/** A photo saved, and the other photos whose reads its save changed (an unsure read confirmed or taken back). */
async function savedPhoto(
  world: World,
  eventId: number,
  photo: Partial<NewPhoto> = {},
  result: Partial<ProcessedPhoto> = {},
): Promise<{ id: string; changedElsewhere: string[] }> {
  const row = newPhoto(eventId, photo);
  await world.photos.insert(row);
  return { id: row.id, changedElsewhere: await world.photos.saveProcessed(row.id, eventId, processed(result)) };
}

const shot = (time: string) => ({ capturedAt: at(`2026-05-17T${time}Z`) });
/** One read under the reader's bar, as the photo job stores it without a start list. */
const unsure = (bib: string): ProcessedPhoto['bibs'] => {
  const read = { bib, confidence: 0.7, partial: false, unsure: true };
  return [{ read, judged: judgeBibRead(read, null) }];
};

/** Whole reads with no start list, stored as the photo job stores them. */
const wholeReads = (reads: Array<[string, number]>): ProcessedPhoto['bibs'] =>
  reads.map(([bib, confidence]) => {
    const read = { bib, confidence, partial: false };
    return { read, judged: judgeBibRead(read, null) };
  });
/** Code-point order (Postgres compares uuids and ISO times so), not the locale's. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe.each(WORLDS)('PhotosRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('stores a photo whose names from outside hold a NUL (an EXIF Artist, a file name), never a database error', async () => {
    const { eventId } = await anEvent(world);
    const photo = newPhoto(eventId, { photographerName: 'Eve\u0000Mallory', originalFileName: 'a\u0000.jpg' });
    await expect(world.photos.insert(photo)).resolves.toBeUndefined();
  });

  it('gives an empty page and total 0 for an event without photos, and for a page past the end', async () => {
    const { eventId } = await anEvent(world);
    expect(await world.photos.galleryPage(eventId, pageAt(0, 10))).toEqual({ total: 0, rows: [] });
    expect(await world.photos.publishedCount(eventId)).toBe(0);
    await aPhoto(world, eventId);
    expect(await world.photos.galleryPage(eventId, pageAt(5, 10))).toEqual({ total: 1, rows: [] });
  });

  it('pages published photos in gallery order (capture time, untimed last, id), the same from either end', async () => {
    const { eventId } = await anEvent(world);
    const times = [
      '2026-05-17T09:00:05Z',
      null,
      '2026-05-17T09:00:01Z',
      '2026-05-17T09:00:03Z',
      null,
      '2026-05-17T09:00:03Z',
      '2026-05-17T09:00:02Z',
    ];
    const ids: Array<{ id: string; time: string | null }> = [];
    for (const time of times)
      ids.push({ id: await aPhoto(world, eventId, { capturedAt: time ? at(time) : null }), time });
    await aPhoto(world, eventId, { capturedAt: at('2026-05-17T09:00:00Z') }, { publishAt: null });
    const expected = [...ids]
      .sort((a, b) => byText(a.time ?? '~', b.time ?? '~') || byText(a.id, b.id))
      .map((p) => p.id);
    expect(await world.photos.publishedCount(eventId)).toBe(7);
    // Every page position: pages near the start are read forwards, near the end backwards.
    for (let offset = 0; offset < 7; offset++) {
      const page = await world.photos.galleryPage(eventId, pageAt(offset, 3));
      expect(page.total).toBe(7);
      expect(page.rows.map((r) => r.id)).toEqual(expected.slice(offset, offset + 3));
    }
    const [first] = (await world.photos.galleryPage(eventId, pageAt(0, 1))).rows;
    expect(first).toMatchObject({ event_id: eventId, large_width: 1600, large_height: 1067, source: 'upload' });
    expect(Number(first.captured_at_ms)).toBe(at('2026-05-17T09:00:01Z').getTime());
  });

  it('finds photos by normalised BIB, published only, paged with the total', async () => {
    const { eventId } = await anEvent(world);
    const a = await aPhoto(
      world,
      eventId,
      { capturedAt: at('2026-05-17T09:00:01Z') },
      { bibs: wholeReads([['123', 0.9]]) },
    );
    const b = await aPhoto(
      world,
      eventId,
      { capturedAt: at('2026-05-17T09:00:02Z') },
      {
        bibs: wholeReads([
          ['123', 0.8],
          ['77', 0.9],
        ]),
      },
    );
    await aPhoto(world, eventId, {}, { bibs: wholeReads([['123', 0.9]]), publishAt: null });
    expect(await world.photos.publishedWithBib(eventId, '123', pageAt(0, 10))).toEqual({
      total: 2,
      ids: [a, b],
    });
    expect(await world.photos.publishedWithBib(eventId, '123', pageAt(1, 10))).toEqual({
      total: 2,
      ids: [b],
    });
    expect(await world.photos.publishedWithBib(eventId, '999', pageAt(0, 10))).toEqual({
      total: 0,
      ids: [],
    });
    expect(await world.photos.publishedWithBib(eventId, '', pageAt(0, 10))).toEqual({
      total: 0,
      ids: [],
    });
  });

  it('answers which photos are published, in the event or any', async () => {
    const { eventId } = await anEvent(world);
    const other = await anEvent(world);
    const live = await aPhoto(world, eventId);
    const hidden = await aPhoto(world, eventId, {}, { publishAt: null });
    const elsewhere = await aPhoto(world, other.eventId);
    expect(await world.photos.publishedAmong([])).toEqual(new Set());
    expect(await world.photos.publishedAmong([live, hidden, elsewhere])).toEqual(new Set([live, elsewhere]));
    expect(await world.photos.publishedAmong([live, hidden, elsewhere], eventId)).toEqual(new Set([live]));
    expect((await world.photos.findPublished(eventId, live))?.id).toBe(live);
    expect(await world.photos.findPublished(eventId, hidden)).toBeNull();
    expect(await world.photos.findPublished(eventId, elsewhere)).toBeNull();
    expect((await world.photos.findPublishedInEvent(eventId, [live, hidden, elsewhere])).map((p) => p.id)).toEqual([
      live,
    ]);
    expect(await world.photos.findPublishedInEvent(eventId, [])).toEqual([]);
    const withEvent = await world.photos.findPublishedWithEvent([live, hidden, elsewhere]);
    expect(withEvent.map((p) => [p.id, p.event.id]).sort()).toEqual(
      [
        [live, eventId],
        [elsewhere, other.eventId],
      ].sort(),
    );
    expect(withEvent.find((p) => p.id === elsewhere)?.event.organisation.id).toBe(other.orgId);
    expect(await world.photos.findPublishedWithEvent([])).toEqual([]);
  });

  it('counts timed published photos per UTC hour and pages a time window', async () => {
    const { eventId } = await anEvent(world);
    const early = await aPhoto(world, eventId, { capturedAt: at('2026-05-17T09:10:00Z') });
    const later = await aPhoto(world, eventId, { capturedAt: at('2026-05-17T09:50:00Z') });
    await aPhoto(world, eventId, { capturedAt: at('2026-05-17T10:00:00Z') });
    await aPhoto(world, eventId, { capturedAt: null });
    await aPhoto(world, eventId, { capturedAt: at('2026-05-17T09:20:00Z') }, { publishAt: null });
    expect(await world.photos.countsByHour(eventId)).toEqual([
      { day: '2026-05-17', hour: 9, count: 2 },
      { day: '2026-05-17', hour: 10, count: 1 },
    ]);
    const window = await world.photos.publishedCapturedBetween(
      eventId,
      at('2026-05-17T09:00:00Z'),
      at('2026-05-17T10:00:00Z'),
      pageAt(0, 1),
    );
    expect([window.total, window.photos.map((p) => p.id)]).toEqual([2, [early]]);
    const second = await world.photos.publishedCapturedBetween(
      eventId,
      at('2026-05-17T09:00:00Z'),
      at('2026-05-17T10:00:00Z'),
      pageAt(1, 1),
    );
    expect(second.photos.map((p) => p.id)).toEqual([later]);
    expect(await world.photos.countsByHour((await anEvent(world)).eventId)).toEqual([]);
  });

  it('lets one of many concurrent imports of the same content in, and finds it by its hash', async () => {
    const { eventId } = await anEvent(world);
    const contentHash = newId();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => world.photos.insert(newPhoto(eventId, { contentHash }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await world.photos.findByContentHash(eventId, contentHash))?.status).toBe('imported');
    expect(await world.photos.findByContentHash(eventId, newId())).toBeNull();
    // The same content in another event is another photo.
    await expect(
      world.photos.insert(newPhoto((await anEvent(world)).eventId, { contentHash })),
    ).resolves.toBeUndefined();
  });

  it('moves photos through the pipeline: queued, processing, failed, processed, published; tallies and reasons', async () => {
    const { eventId } = await anEvent(world);
    const a = newPhoto(eventId);
    const b = newPhoto(eventId);
    const c = newPhoto(eventId);
    for (const p of [a, b, c]) await world.photos.insert(p);
    expect((await world.photos.markQueued(eventId, ['imported'])).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(await world.photos.markQueued(eventId, ['imported'])).toEqual([]);
    await world.photos.markProcessing(a.id);
    await world.photos.markFailed(b.id, 'corrupt or truncated image');
    await world.photos.markFailed(c.id, 'corrupt or truncated image');
    expect(await world.photos.failureReasons(eventId, 5)).toEqual([{ reason: 'corrupt or truncated image', count: 2 }]);
    expect(await world.photos.failureReasons(eventId, 0)).toEqual([]);
    expect((await world.photos.failedPhotos(eventId, 5)).sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      [b, c]
        .map((p) => ({ id: p.id, fileName: p.originalFileName, reason: 'corrupt or truncated image' }))
        .sort((x, y) => x.id.localeCompare(y.id)),
    );
    expect(await world.photos.failedPhotos(eventId, 1)).toHaveLength(1);
    await world.photos.saveProcessed(a.id, eventId, processed({ publishAt: null }));
    // A processed photo is not sent back to processing or failed by a late retry.
    await world.photos.markProcessing(a.id);
    await world.photos.markFailed(a.id, 'late');
    expect((await world.photos.findWithEvent(a.id))?.status).toBe('processed');
    expect((await world.photos.findWithEvent(a.id))?.event.id).toBe(eventId);
    expect(await world.photos.findWithEvent(newId())).toBeNull();
    const tally = (await world.photos.tallyByStatus(eventId)).map(({ status, count, live }) => ({
      status,
      count,
      live,
    }));
    expect(tally.sort((x, y) => x.status.localeCompare(y.status))).toEqual([
      { status: 'failed', count: 2, live: 0 },
      { status: 'processed', count: 1, live: 0 },
    ]);
    expect(await world.photos.publishProcessed(eventId, at('2026-05-17T13:00:00Z'))).toBe(1);
    expect(await world.photos.publishProcessed(eventId, at('2026-05-17T14:00:00Z'))).toBe(0);
    expect(await world.photos.publishedCount(eventId)).toBe(1);
    const empty = await anEvent(world);
    expect(await world.photos.countsOfEvents([eventId, empty.eventId])).toEqual([
      { eventId, total: 3, processed: 1, failed: 2, live: 1 },
    ]);
    expect(await world.photos.countsOfEvents([])).toEqual([]);
    expect((await world.photos.markQueued(eventId, ['failed'], [b.id])).sort()).toEqual([b.id]);
    expect((await world.photos.markQueued(eventId, ['failed'])).sort()).toEqual([c.id]);
    expect(await world.photos.failureReasons(eventId, 5)).toEqual([]);
  });

  it('replaces BIBs and faces on reprocessing, and reports faces of older descriptor versions', async () => {
    const { eventId } = await anEvent(world);
    const other = await anEvent(world);
    const id = await aPhoto(
      world,
      eventId,
      { originalFileName: 'cover.jpg' },
      { bibs: wholeReads([['5', 0.9]]), faces: [{ ...FACE, descriptorVersion: 3 }, FACE] },
    );
    await aPhoto(world, other.eventId, {}, { faces: [FACE] });
    expect(await world.photos.withFacesOlderThan(eventId, 4)).toEqual([id]);
    expect(await world.photos.eventsWithFacesOlderThan(4)).toContain(eventId);
    expect(await world.photos.eventsWithFacesOlderThan(4)).not.toContain(other.eventId);
    await world.photos.markForReprocessing(id);
    const row = await world.photos.findWithEvent(id);
    expect([row?.status, !!row?.publishedAt]).toEqual(['imported', true]);
    await world.photos.saveProcessed(id, eventId, processed({ bibs: wholeReads([['6', 0.9]]), faces: [FACE] }));
    expect(await world.photos.withFacesOlderThan(eventId, 4)).toEqual([]);
    expect(await world.photos.eventsWithFacesOlderThan(4)).not.toContain(eventId);
    expect((await world.photos.publishedWithBib(eventId, '5', pageAt(0, 5))).total).toBe(0);
    expect((await world.photos.publishedWithBib(eventId, '6', pageAt(0, 5))).ids).toEqual([id]);
    expect(await world.photos.largeKeyOfFile(eventId, 'cover.jpg')).toMatch(/^large\//);
    expect(await world.photos.largeKeyOfFile(eventId, 'missing.jpg')).toBeNull();
  });

  it('loads faces after an id, by id, within a limit, leaving out held ids; ids beyond 2^53 are exact', async () => {
    const { eventId } = await anEvent(world);
    await aPhoto(world, eventId, {}, { faces: [FACE, FACE, FACE] });
    const all = await world.photos.facesAfter(eventId, '0', 10);
    expect(all).toHaveLength(3);
    const ids = all.map((f) => f.id);
    expect([...ids].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1))).toEqual(ids);
    expect(all[0]).toMatchObject({ version: 4, quality: 0.5, group: null });
    expect(Buffer.compare(all[0].embedding, FACE.embedding)).toBe(0);
    expect((await world.photos.facesAfter(eventId, ids[0], 1)).map((f) => f.id)).toEqual([ids[1]]);
    expect((await world.photos.facesAfter(eventId, '0', 10, [ids[1]])).map((f) => f.id)).toEqual([ids[0], ids[2]]);
    expect(await world.photos.facesAfter(eventId, '9007199254740993', 10)).toEqual([]);
    expect(await world.photos.facesAfter((await anEvent(world)).eventId, '0', 10)).toEqual([]);
  });

  it('names the largest face on a published photo, with its original', async () => {
    const { eventId } = await anEvent(world);
    expect(await world.photos.largestPublishedFace(eventId)).toBeNull();
    await aPhoto(
      world,
      eventId,
      {},
      { faces: [{ ...FACE, box: { x: 0, y: 0, width: 500, height: 500 } }], publishAt: null },
    );
    const id = await aPhoto(
      world,
      eventId,
      {},
      { faces: [FACE, { ...FACE, box: { x: 5, y: 6, width: 70, height: 80 } }] },
    );
    expect(await world.photos.largestPublishedFace(eventId)).toEqual({
      originalKey: `originals/${eventId}/${id}.jpg`,
      box: { x: 5, y: 6, width: 70, height: 80 },
    });
  });
});

describe.each(WORLDS)('PhotosRepository, the organiser review: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });
  const page = pageAt(0, 10);

  it('hides a photo from every published read and keeps it unpublished until unhidden', async () => {
    const { eventId } = await anEvent(world);
    const photo = await aPhoto(world, eventId, {}, { bibs: wholeReads([['42', 0.9]]) });
    const other = await aPhoto(world, eventId);
    expect(await world.photos.publishedCount(eventId)).toBe(2);
    expect(await world.photos.hide(eventId, photo, new Date())).toBe(true);
    expect(await world.photos.hide(eventId, photo, new Date())).toBe(false);
    expect(await world.photos.publishedCount(eventId)).toBe(1);
    expect(await world.photos.publishedWithBib(eventId, '42', page)).toEqual({ total: 0, ids: [] });
    expect(await world.photos.publishedAmong([photo, other])).toEqual(new Set([other]));
    expect((await world.photos.galleryPage(eventId, page)).rows.map((r) => r.id)).toEqual([other]);
    // Neither go-live nor the photo job publishes it again.
    expect(await world.photos.publishProcessed(eventId, new Date())).toBe(0);
    await world.photos.saveProcessed(photo, eventId, processed({ bibs: wholeReads([['42', 0.9]]) }));
    expect(await world.photos.publishedAmong([photo])).toEqual(new Set());
    expect((await world.photos.findInEvent(eventId, photo))?.hiddenAt).toBeInstanceOf(Date);
    expect(await world.photos.unhide(eventId, photo, new Date())).toBe(true);
    expect(await world.photos.unhide(eventId, photo, new Date())).toBe(false);
    expect(await world.photos.publishedCount(eventId)).toBe(2);
    expect((await world.photos.publishedWithBib(eventId, '42', page)).ids).toEqual([photo]);
    // Another event's id does nothing.
    const { eventId: elsewhere } = await anEvent(world);
    expect(await world.photos.hide(elsewhere, photo, new Date())).toBe(false);
    expect(await world.photos.findInEvent(elsewhere, photo)).toBeNull();
  });

  it("keeps the organiser's word on a bib through re-reading and re-judging", async () => {
    const { eventId } = await anEvent(world);
    const box = { x: 0.1, y: 0.2, width: 0.1, height: 0.05 };
    const read = { bib: '777', confidence: 0.8, partial: false, box };
    const photo = await aPhoto(world, eventId, {}, { bibs: [{ read, judged: judgeBibRead(read, null) }] });
    expect(await world.photos.setOrganiserBib(eventId, photo, '777', 'rejected')).toBe(1);
    expect(await world.photos.setOrganiserBib(eventId, photo, '12', 'rejected')).toBe(0);
    expect(await world.photos.setOrganiserBib(eventId, photo, '12', 'accepted')).toBe(1);
    expect(await world.photos.publishedWithBib(eventId, '777', page)).toEqual({ total: 0, ids: [] });
    expect((await world.photos.publishedWithBib(eventId, '12', page)).ids).toEqual([photo]);
    // Read again (the photo processed again) and re-judged: the organiser's rows stand, the re-read is not stored twice.
    await world.photos.saveProcessed(photo, eventId, processed({ bibs: [{ read, judged: judgeBibRead(read, null) }] }));
    const rows = await world.photos.bibReadsOf(eventId);
    await world.photos.setBibJudgements(
      eventId,
      rows.map((r) => ({ id: r.id, bib: r.bib, status: 'accepted' as const, source: 'read' as const })),
    );
    const shown = await world.photos.bibRowsOf([photo]);
    expect(shown.map((b) => [b.bib, b.status, b.source, b.readText])).toEqual([
      ['777', 'rejected', 'organiser', '777'],
      ['12', 'accepted', 'organiser', null],
    ]);
    expect(shown[0].box).toEqual(
      expect.objectContaining({ x: expect.closeTo(0.1, 5), height: expect.closeTo(0.05, 5) }),
    );
    expect(await world.photos.publishedWithBib(eventId, '777', page)).toEqual({ total: 0, ids: [] });
    const { eventId: elsewhere } = await anEvent(world);
    expect(await world.photos.setOrganiserBib(elsewhere, photo, '99', 'accepted')).toBe(0);
  });

  it("keeps a read's doubtful end digit, so a start list imported later completes it as the photo job would", async () => {
    const { eventId } = await anEvent(world);
    const read = { bib: '13628', confidence: 0.95, partial: false, weakEnd: 'first' as const };
    await aPhoto(world, eventId, {}, { bibs: [{ read, judged: judgeBibRead(read, null) }] });
    const rows = await world.photos.bibReadsOf(eventId);
    expect(rows.map((r) => [r.readText, r.weakEnd])).toEqual([['13628', 'first']]);
    expect(rejudgedReads(rows, startListView(['3628']))).toEqual([
      { id: rows[0].id, bib: '3628', status: 'completed', source: 'completed' },
    ]);
  });

  it('confirms an unsure read as a photo near it in time holding the same number is saved, both ways', async () => {
    const { eventId } = await anEvent(world);
    const weak = await aPhoto(world, eventId, shot('09:00:00'), { bibs: unsure('311') });
    const later = await aPhoto(world, eventId, shot('09:05:00'), { bibs: unsure('80') });
    expect((await world.photos.bibRowsOf([weak])).map((b) => b.status)).toEqual(['unconfirmed']);
    expect(await world.photos.publishedWithBib(eventId, '311', page)).toEqual({ total: 0, ids: [] });
    // A sure read 40 s later confirms the earlier unsure one as it is saved; a photo five minutes away does not.
    const sure = await savedPhoto(world, eventId, shot('09:00:40'), { bibs: wholeReads([['311', 0.95]]) });
    expect(sure.changedElsewhere).toEqual([weak]);
    const near = await savedPhoto(world, eventId, shot('09:00:50'), { bibs: unsure('80') });
    expect(near.changedElsewhere).toEqual([]);
    expect((await world.photos.publishedWithBib(eventId, '311', page)).ids.sort()).toEqual([sure.id, weak].sort());
    expect((await world.photos.bibRowsOf([later, near.id])).map((b) => b.status)).toEqual([
      'unconfirmed',
      'unconfirmed',
    ]);
    // Two unsure reads of one number near each other confirm each other; a photo without a capture time is near
    // only photos without one, by import time.
    const untimed = await aPhoto(world, eventId, {}, { bibs: unsure('1777') });
    const untimedToo = await savedPhoto(world, eventId, {}, { bibs: unsure('1777') });
    expect(untimedToo.changedElsewhere).toEqual([untimed]);
    expect((await world.photos.bibRowsOf([untimed, untimedToo.id])).map((b) => [b.bib, b.status])).toEqual([
      ['1777', 'accepted'],
      ['1777', 'accepted'],
    ]);
    // Another event's reads never confirm.
    const { eventId: elsewhere } = await anEvent(world);
    const other = await savedPhoto(world, elsewhere, shot('09:05:10'), { bibs: wholeReads([['80', 0.99]]) });
    expect(other.changedElsewhere).toEqual([]);
    expect((await world.photos.bibRowsOf([later, near.id])).map((b) => b.status)).toEqual([
      'unconfirmed',
      'unconfirmed',
    ]);
    expect((await world.photos.bibReadsOf(eventId)).filter((r) => r.unsure)).toHaveLength(5);
  });

  it('settles the whole event as a start list changes the reads: a read the list changes confirms, then no longer', async () => {
    const { eventId } = await anEvent(world);
    const weak = await aPhoto(world, eventId, shot('13:00:00'), { bibs: unsure('311') });
    const edge = { bib: '2311', confidence: 0.95, partial: false, weakEnd: 'first' as const };
    const sheet = await aPhoto(world, eventId, shot('13:00:20'), {
      bibs: [{ read: edge, judged: judgeBibRead(edge, null) }],
    });
    const statuses = async () =>
      (await world.photos.bibRowsOf([weak, sheet]))
        .map((b) => [b.photoId === weak ? 'weak' : 'sheet', b.bib, b.status])
        .sort((a, b) => (a[0] < b[0] ? 1 : -1));
    expect(await statuses()).toEqual([
      ['weak', '311', 'unconfirmed'],
      ['sheet', '2311', 'accepted'],
    ]);
    const rejudge = async (list: string[]) =>
      world.photos.setBibJudgements(
        eventId,
        rejudgedReads(await world.photos.bibReadsOf(eventId), startListView(list)),
      );
    // A list of 311 alone: the sheet's edge read as a 2 is dropped, and its 311 confirms the weak read.
    await rejudge(['311']);
    expect(await statuses()).toEqual([
      ['weak', '311', 'accepted'],
      ['sheet', '311', 'completed'],
    ]);
    // A list that holds 2311 too: the sheet reads 2311 again, and the weak read has nothing near it.
    await rejudge(['311', '2311']);
    expect(await statuses()).toEqual([
      ['weak', '311', 'unconfirmed'],
      ['sheet', '2311', 'accepted'],
    ]);
  });

  it("settles the whole event by the same rule as a photo: the window's edges, import times, a mix of both", async () => {
    const { eventId } = await anEvent(world);
    // Each weak read has a sure read of a number that is not its own near it, until the judgements below make it so.
    const weak = {
      atEdge: await aPhoto(world, eventId, shot('10:00:00'), { bibs: unsure('5') }),
      pastEdge: await aPhoto(world, eventId, shot('10:05:00'), { bibs: unsure('6') }),
      imported: await aPhoto(world, eventId, {}, { bibs: unsure('7') }),
      mixed: await aPhoto(world, eventId, shot('10:20:00'), { bibs: unsure('8') }),
    };
    await aPhoto(world, eventId, shot('10:01:00'), { bibs: wholeReads([['50', 0.95]]) });
    await aPhoto(world, eventId, shot('10:06:01'), { bibs: wholeReads([['60', 0.95]]) });
    await aPhoto(world, eventId, {}, { bibs: wholeReads([['70', 0.95]]) });
    await aPhoto(world, eventId, {}, { bibs: wholeReads([['80', 0.95]]) });
    const statuses = async () =>
      Object.fromEntries(
        (await world.photos.bibRowsOf(Object.values(weak))).map((b) => [
          Object.entries(weak).find(([, id]) => id === b.photoId)![0],
          b.status,
        ]),
      );
    const renumber = async (from: (bib: string) => string | null) => {
      const changes = (await world.photos.bibReadsOf(eventId))
        .filter((r) => from(r.bib) !== null)
        .map((r) => ({ id: r.id, bib: from(r.bib)!, status: r.status, source: 'read' as const }));
      await world.photos.setBibJudgements(eventId, changes);
    };
    const unconfirmed = {
      atEdge: 'unconfirmed',
      pastEdge: 'unconfirmed',
      imported: 'unconfirmed',
      mixed: 'unconfirmed',
    };
    expect(await statuses()).toEqual(unconfirmed);
    await renumber((bib) => (bib.length === 2 ? bib[0] : null));
    // 60 s apart counts, 61 s does not; photos without a capture time by import time; never one of each.
    expect(await statuses()).toEqual({
      atEdge: 'accepted',
      pastEdge: 'unconfirmed',
      imported: 'accepted',
      mixed: 'unconfirmed',
    });
    await world.photos.setBibJudgements(
      eventId,
      (await world.photos.bibReadsOf(eventId))
        .filter((r) => !r.unsure)
        .map((r) => ({ id: r.id, bib: `${r.bib}0`, status: r.status, source: 'read' as const })),
    );
    expect(await statuses()).toEqual(unconfirmed);
  });

  it('confirms an unsure read a start list completed as completed (the rule says which status it takes)', async () => {
    const { eventId } = await anEvent(world);
    const read = { bib: '13628', confidence: 0.7, partial: false, weakEnd: 'first' as const, unsure: true };
    const weak = await aPhoto(world, eventId, shot('12:00:00'), {
      bibs: [{ read, judged: judgeBibRead(read, startListView(['3628'])) }],
    });
    const stored = async () => (await world.photos.bibRowsOf([weak])).map((b) => [b.bib, b.status, b.source]);
    expect(await stored()).toEqual([['3628', 'unconfirmed', 'completed']]);
    await aPhoto(world, eventId, shot('12:00:30'), { bibs: wholeReads([['3628', 0.95]]) });
    expect(await stored()).toEqual([['3628', 'completed', 'completed']]);
  });

  it('confirms two unsure reads of photos saved at the same moment (a save waits for the other)', async () => {
    const { eventId } = await anEvent(world);
    // Unpublished (an event not live yet): no published count's row serialises the two saves.
    for (const time of ['11:00:00', '11:10:00', '11:20:00', '11:30:00']) {
      const rows = [newPhoto(eventId, shot(time)), newPhoto(eventId, shot(time))];
      for (const row of rows) await world.photos.insert(row);
      await Promise.all(
        rows.map((row) =>
          world.photos.saveProcessed(row.id, eventId, processed({ bibs: unsure('77'), publishAt: null })),
        ),
      );
      expect((await world.photos.bibRowsOf(rows.map((r) => r.id))).map((b) => b.status)).toEqual([
        'accepted',
        'accepted',
      ]);
    }
  });

  it('takes a confirmation back when the photo that gave it is deleted, read again without it or its bib rejected', async () => {
    const { eventId } = await anEvent(world);
    const status = async (id: string) => (await world.photos.bibRowsOf([id])).map((b) => b.status);
    const weak = await aPhoto(world, eventId, shot('10:00:00'), { bibs: unsure('311') });
    const deleted = await aPhoto(world, eventId, shot('10:00:20'), { bibs: wholeReads([['311', 0.95]]) });
    expect(await status(weak)).toEqual(['accepted']);
    expect(await world.photos.remove(eventId, deleted)).toBe(true);
    expect(await status(weak)).toEqual(['unconfirmed']);
    expect(await world.photos.publishedWithBib(eventId, '311', page)).toEqual({ total: 0, ids: [] });

    // Read again (a new model) without the number: the read it confirmed counts no longer; with it again, it does.
    const reread = await aPhoto(world, eventId, shot('10:00:30'), { bibs: wholeReads([['311', 0.95]]) });
    expect(await status(weak)).toEqual(['accepted']);
    await world.photos.markForReprocessing(reread);
    expect(await world.photos.saveProcessed(reread, eventId, processed({ bibs: wholeReads([['31', 0.9]]) }))).toEqual([
      weak,
    ]);
    expect(await status(weak)).toEqual(['unconfirmed']);
    await world.photos.markForReprocessing(reread);
    await world.photos.saveProcessed(reread, eventId, processed({ bibs: wholeReads([['311', 0.9]]) }));
    expect(await status(weak)).toEqual(['accepted']);

    // The organiser rejects the confirming read: the weak one is unconfirmed; the organiser's own bib confirms it.
    expect(await world.photos.setOrganiserBib(eventId, reread, '311', 'rejected')).toBe(1);
    expect(await status(weak)).toEqual(['unconfirmed']);
    expect(await world.photos.setOrganiserBib(eventId, reread, '311', 'accepted')).toBe(1);
    expect(await status(weak)).toEqual(['accepted']);
    // The organiser's word on the unsure read itself is final: no photo takes it back.
    expect(await world.photos.setOrganiserBib(eventId, weak, '311', 'accepted')).toBe(1);
    await world.photos.remove(eventId, reread);
    expect(await status(weak)).toEqual(['accepted']);
  });

  it('removes a photo with its bibs and faces; the published count follows', async () => {
    const { eventId } = await anEvent(world);
    const photo = await aPhoto(world, eventId, {}, { bibs: wholeReads([['5', 0.9]]), faces: [FACE] });
    expect((await world.photos.faceRowsOf([photo])).map((f) => f.box)).toEqual([FACE.box]);
    expect(await world.photos.remove(eventId, photo)).toBe(true);
    expect(await world.photos.remove(eventId, photo)).toBe(false);
    expect(await world.photos.findInEvent(eventId, photo)).toBeNull();
    expect(await world.photos.bibRowsOf([photo])).toEqual([]);
    expect(await world.photos.faceRowsOf([photo])).toEqual([]);
    expect(await world.photos.publishedCount(eventId)).toBe(0);
    expect(await world.photos.facesAfter(eventId, '0', 10)).toEqual([]);
  });

  it('queues processed photos with no searchable bib, a rejected read or a completed one, by id', async () => {
    const { eventId } = await anEvent(world);
    const fine = await aPhoto(world, eventId, {}, { bibs: wholeReads([['10', 0.9]]) });
    const none = await aPhoto(world, eventId);
    const fragment = { bib: '23', confidence: 0.7, partial: true };
    const mixed = await aPhoto(
      world,
      eventId,
      {},
      {
        bibs: [
          { read: fragment, judged: { bib: '1234', status: 'completed', source: 'completed' } },
          {
            read: { bib: '9', confidence: 0.6, partial: false },
            judged: { bib: '9', status: 'rejected', source: 'read' },
          },
        ],
      },
    );
    const waiting = newPhoto(eventId);
    await world.photos.insert(waiting);
    const queued = [none, mixed].sort(byText);
    const all = await world.photos.reviewQueue(eventId, null, 10);
    expect(all.map((r) => r.photoId)).toEqual(queued);
    expect(all.find((r) => r.photoId === mixed)?.reasons).toEqual(['rejected_read', 'completed_read']);
    expect(all.find((r) => r.photoId === none)?.reasons).toEqual(['no_bib']);
    expect((await world.photos.reviewQueue(eventId, null, 1)).map((r) => r.photoId)).toEqual([queued[0]]);
    expect((await world.photos.reviewQueue(eventId, queued[0], 10)).map((r) => r.photoId)).toEqual([queued[1]]);
    await world.photos.setOrganiserBib(eventId, mixed, '1234', 'accepted');
    await world.photos.setOrganiserBib(eventId, mixed, '9', 'rejected');
    expect((await world.photos.reviewQueue(eventId, null, 10)).map((r) => r.photoId)).toEqual([none]);
    expect(fine).toBeDefined();
  });
});

describe.each(WORLDS)('AuditLogRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('keeps who did what to which photo, newest first, per organisation and event', async () => {
    const { orgId, eventId } = await anEvent(world);
    const { orgId: otherOrg } = await anEvent(world);
    const photoId = newId();
    const operator = { kind: 'operator' as const, accountId: null, apiKeyId: null };
    await world.audit.record({ orgId, eventId, actor: operator, action: 'photo.hide', photoId, detail: null });
    await world.audit.record({
      orgId,
      eventId,
      actor: operator,
      action: 'photo.add_bib',
      photoId,
      detail: { bib: '12' },
    });
    await world.audit.record({
      orgId,
      eventId: null,
      actor: operator,
      action: 'start_list.import',
      photoId: null,
      detail: { imported: 3 },
    });
    await world.audit.record({
      orgId: otherOrg,
      eventId,
      actor: operator,
      action: 'photo.delete',
      photoId,
      detail: null,
    });
    const entries = await world.audit.page(orgId, { eventId: null, beforeId: null, limit: 10 });
    expect(entries.map((e) => e.action)).toEqual(['start_list.import', 'photo.add_bib', 'photo.hide']);
    expect(entries[1]).toMatchObject({
      orgId,
      eventId,
      photoId,
      detail: { bib: '12' },
      actor: operator,
      accountEmail: null,
    });
    expect(entries[1].at).toBeInstanceOf(Date);
    expect((await world.audit.page(orgId, { eventId, beforeId: null, limit: 10 })).map((e) => e.action)).toEqual([
      'photo.add_bib',
      'photo.hide',
    ]);
    expect(
      (await world.audit.page(orgId, { eventId: null, beforeId: entries[0].id, limit: 1 })).map((e) => e.action),
    ).toEqual(['photo.add_bib']);
  });
});

describe.each(WORLDS)('FaceSearchesRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  const search = (orgId: number, eventId: number, requestId = newId()): NewFaceSearch => ({
    requestId,
    orgId,
    eventId,
    apiKeyId: null,
    confidenceThreshold: 80,
    matches: [{ photoId: newId(), confidence: 91.5 }],
    facesFound: 1,
    embedding: Buffer.alloc(512, 2),
  });

  it('stores one search per request_id under concurrent inserts, and finds it in its event only', async () => {
    const { orgId, eventId } = await anEvent(world);
    const other = await anEvent(world);
    const first = search(orgId, eventId);
    const results = await Promise.all(Array.from({ length: 5 }, () => world.faceSearches.insertIfAbsent(first)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const found = await world.faceSearches.find(eventId, first.requestId);
    expect(found).toMatchObject({
      requestId: first.requestId,
      orgId,
      eventId,
      confidenceThreshold: 80,
      facesFound: 1,
      matches: first.matches,
    });
    expect(Buffer.compare(found!.embedding!, first.embedding!)).toBe(0);
    expect(await world.faceSearches.find(other.eventId, first.requestId)).toBeNull();
    // The same request_id in another event is another search.
    expect(await world.faceSearches.insertIfAbsent(search(other.orgId, other.eventId, first.requestId))).toBe(true);
    expect(await world.faceSearches.find(eventId, newId())).toBeNull();
  });

  it('keeps a search without a face (no embedding)', async () => {
    const { orgId, eventId } = await anEvent(world);
    const none = { ...search(orgId, eventId), facesFound: 0, matches: [], embedding: null };
    expect(await world.faceSearches.insertIfAbsent(none)).toBe(true);
    expect(await world.faceSearches.find(eventId, none.requestId)).toMatchObject({
      facesFound: 0,
      matches: [],
      embedding: null,
    });
  });

  it('counts billable searches and retries per organisation, by event and time', async () => {
    const { orgId, eventId } = await anEvent(world);
    const second = await world.events.create(orgId, settings());
    const a = search(orgId, eventId);
    await world.faceSearches.insertIfAbsent(a);
    await world.faceSearches.insertIfAbsent(search(orgId, second.id));
    await world.faceSearches.recordCacheHit(eventId, a.requestId);
    await world.faceSearches.recordCacheHit(eventId, a.requestId);
    await world.faceSearches.recordCacheHit(eventId, newId());
    expect(await world.faceSearches.usage(orgId, {})).toEqual({ billable: 2, retries: 2 });
    expect(await world.faceSearches.usage(orgId, { eventId })).toEqual({ billable: 1, retries: 2 });
    expect(await world.faceSearches.usage(orgId, { from: new Date(Date.now() + 60_000) })).toEqual({
      billable: 0,
      retries: 0,
    });
    expect(await world.faceSearches.usage(orgId, { to: new Date(Date.now() - 3_600_000) })).toEqual({
      billable: 0,
      retries: 0,
    });
    expect(await world.faceSearches.usage((await anEvent(world)).orgId, {})).toEqual({ billable: 0, retries: 0 });
  });

  it('says whether a request_id belongs to one of the organisations', async () => {
    const { orgId, eventId } = await anEvent(world);
    const a = search(orgId, eventId);
    await world.faceSearches.insertIfAbsent(a);
    expect(await world.faceSearches.existsForOrganisations(eventId, a.requestId, [orgId])).toBe(true);
    expect(await world.faceSearches.existsForOrganisations(eventId, a.requestId, [orgId + 1000])).toBe(false);
    expect(await world.faceSearches.existsForOrganisations(eventId, a.requestId, [])).toBe(false);
    expect(await world.faceSearches.existsForOrganisations(eventId, newId(), [orgId])).toBe(false);
  });
});

describe.each(WORLDS)('OrganisationsRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('creates, finds, lists by name and renames; a slug is taken once', async () => {
    const a = await world.organisations.create({ name: 'Zeta Runners', slug: slug('zeta') });
    const b = await world.organisations.create({ name: 'Alpha Runners', slug: slug('alpha') });
    expect(await world.organisations.findById(a.id)).toEqual(a);
    expect(await world.organisations.findBySlug(b.slug)).toEqual(b);
    expect(await world.organisations.findBySlug(slug('missing'))).toBeNull();
    expect(await world.organisations.findById(2_000_000_000)).toBeNull();
    expect((await world.organisations.list([a.id, b.id])).map((o) => o.id)).toEqual([b.id, a.id]);
    expect(await world.organisations.list([])).toEqual([]);
    expect((await world.organisations.list(null)).map((o) => o.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await world.organisations.rename(a.id, 'Aardvark Runners')).toMatchObject({
      id: a.id,
      name: 'Aardvark Runners',
    });
    expect((await world.organisations.list([a.id, b.id])).map((o) => o.id)).toEqual([a.id, b.id]);
    expect(await world.organisations.rename(2_000_000_000, 'x')).toBeNull();
    await expect(world.organisations.create({ name: 'Again', slug: a.slug })).rejects.toThrow();
  });
});

describe.each(WORLDS)('EventsRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('creates, finds by id and slug, lists newest event date first (undated last), updates', async () => {
    const { orgId, eventId } = await anEvent(world, { eventDate: null });
    const dated = await world.events.create(orgId, settings({ eventDate: at('2026-05-17T00:00:00Z') }));
    const later = await world.events.create(orgId, settings({ eventDate: at('2026-06-01T00:00:00Z') }));
    const found = await world.events.findById(dated.id);
    expect(found).toMatchObject({ id: dated.id, name: 'City 10K', slug: dated.slug, timeZone: 'UTC', enabled: true });
    expect((await world.events.findAccess(dated.id))?.organisation.id).toBe(orgId);
    const many = await world.events.findAccessMany([dated.id, later.id, dated.id, 2_000_000_000, -1]);
    expect(many.map((e) => [e.id, e.organisation.id]).sort()).toEqual(
      [
        [dated.id, orgId],
        [later.id, orgId],
      ].sort(),
    );
    expect(await world.events.findAccessMany([])).toEqual([]);
    expect(await world.events.findById(2_000_000_000)).toBeNull();
    expect(await world.events.findAccess(2_000_000_000)).toBeNull();
    expect((await world.events.findBySlug(orgId, dated.slug))?.id).toBe(dated.id);
    expect(await world.events.findBySlug(orgId + 1000, dated.slug)).toBeNull();
    const page = await world.events.listForOrganisation(orgId, 2, 0);
    expect([page.total, page.items.map((e) => e.id)]).toEqual([3, [later.id, dated.id]]);
    expect((await world.events.listForOrganisation(orgId, 2, 2)).items.map((e) => e.id)).toEqual([eventId]);
    expect(await world.events.slugTaken(orgId, dated.slug)).toBe(true);
    expect(await world.events.slugTaken(orgId, dated.slug, dated.id)).toBe(false);
    expect(await world.events.slugTaken(orgId, slug('free'))).toBe(false);
    const updated = await world.events.update(dated.id, { name: 'City Half', bibSearch: false });
    expect(updated).toMatchObject({ id: dated.id, name: 'City Half', bibSearch: false });
    expect((await world.events.findById(dated.id))?.name).toBe('City Half');
    expect(await world.events.update(2_000_000_000, { name: 'x' })).toBeNull();
  });

  it('hides an event being deleted from every lookup but the deletion job, then removes it', async () => {
    const { orgId, eventId } = await anEvent(world);
    const kept = await world.events.create(orgId, settings());
    const doomed = await world.events.findById(eventId);
    await world.events.markDeleting(eventId, at('2026-05-17T12:00:00Z'));
    expect(await world.events.findById(eventId)).toBeNull();
    expect(await world.events.findAccess(eventId)).toBeNull();
    expect(await world.events.findBySlug(orgId, doomed!.slug)).toBeNull();
    expect((await world.events.listForOrganisation(orgId, 10, 0)).items.map((e) => e.id)).toEqual([kept.id]);
    const deleting = await world.events.findDeleting(eventId);
    expect([deleting?.id, deleting?.organisation.id, deleting?.enabled]).toEqual([eventId, orgId, false]);
    expect(await world.events.findDeleting(kept.id)).toBeNull();
    await world.events.deleteRow(eventId);
    expect(await world.events.findDeleting(eventId)).toBeNull();
  });

  it('records the first go-live only', async () => {
    const { eventId } = await anEvent(world);
    expect(await world.events.isLive(eventId)).toBe(false);
    const first = at('2026-05-17T12:00:00Z');
    expect((await world.events.markWentLive(eventId, first)).getTime()).toBe(first.getTime());
    expect((await world.events.markWentLive(eventId, at('2026-05-18T12:00:00Z'))).getTime()).toBe(first.getTime());
    expect(await world.events.isLive(eventId)).toBe(true);
  });
});

describe.each(WORLDS)('ApiKeysRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  const key = (orgId: number, fields: Partial<NewApiKey> = {}): NewApiKey => ({
    orgId,
    name: 'site',
    prefix: newId().slice(0, 8),
    keyHash: newId(),
    allowedHosts: ['example.org'],
    rateLimit: null,
    readOnly: false,
    eventIds: null,
    ...fields,
  });

  it('creates keys active, finds them by hash and within their organisation only, lists and counts them', async () => {
    const { orgId } = await anEvent(world);
    const other = await anEvent(world);
    const fields = key(orgId, { readOnly: true, rateLimit: 30, eventIds: [3, 12] });
    const created = await world.apiKeys.create(fields);
    expect(created).toMatchObject({
      orgId,
      name: 'site',
      prefix: fields.prefix,
      active: true,
      allowedHosts: ['example.org'],
      rateLimit: 30,
      readOnly: true,
      eventIds: [3, 12],
      lastUsedAt: null,
    });
    expect(created).not.toHaveProperty('keyHash');
    const second = await world.apiKeys.create(key(orgId));
    expect(second.eventIds).toBeNull();
    expect(await world.apiKeys.findByHash(fields.keyHash)).toEqual(created);
    expect(await world.apiKeys.findByHash(newId())).toBeNull();
    expect(await world.apiKeys.findInOrganisation(orgId, created.id)).toEqual(created);
    expect(await world.apiKeys.findInOrganisation(other.orgId, created.id)).toBeNull();
    expect(await world.apiKeys.countForOrganisation(orgId)).toBe(2);
    expect(await world.apiKeys.countForOrganisation(other.orgId)).toBe(0);
    expect((await world.apiKeys.listForOrganisation(orgId)).map((k) => k.id).sort((a, b) => a - b)).toEqual([
      created.id,
      second.id,
    ]);
    expect(await world.apiKeys.listForOrganisation(other.orgId)).toEqual([]);
  });

  it('switches a key off and on, records its last use, deletes it', async () => {
    const { orgId } = await anEvent(world);
    const fields = key(orgId);
    const { id } = await world.apiKeys.create(fields);
    await world.apiKeys.setActive(id, false);
    expect((await world.apiKeys.findByHash(fields.keyHash))?.active).toBe(false);
    await world.apiKeys.setActive(id, true);
    const used = at('2026-05-17T12:00:00Z');
    await world.apiKeys.touchLastUsed(id, used);
    expect((await world.apiKeys.findByHash(fields.keyHash))?.lastUsedAt?.getTime()).toBe(used.getTime());
    await world.apiKeys.delete(id);
    expect(await world.apiKeys.findByHash(fields.keyHash)).toBeNull();
    await expect(world.apiKeys.delete(id)).resolves.toBeUndefined();
  });
});

describe.each(WORLDS)('AccountsRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('creates an account once per e-mail, links a subject once, sets its flags', async () => {
    const email = `${slug('runner')}@example.org`;
    const created = await world.accounts.findOrCreate(email);
    expect(created).toMatchObject({ email, subject: null, active: true, platformAdmin: false });
    expect(await world.accounts.findOrCreate(email)).toEqual(created);
    expect(await world.accounts.findById(created.id)).toEqual(created);
    expect(await world.accounts.findByEmail(email)).toEqual(created);
    expect(await world.accounts.findByEmail(`${slug('nobody')}@example.org`)).toBeNull();
    const subject = slug('sub');
    expect(await world.accounts.linkSubjectByEmail(email, subject)).toMatchObject({ id: created.id, subject });
    // Linked once: a second subject does not take the account over.
    expect(await world.accounts.linkSubjectByEmail(email, slug('other'))).toBeNull();
    expect((await world.accounts.findBySubject(subject))?.id).toBe(created.id);
    expect(await world.accounts.findBySubject(slug('unknown'))).toBeNull();
    await world.accounts.setPlatformAdmin(created.id, true);
    await world.accounts.setActive(created.id, false);
    expect(await world.accounts.findById(created.id)).toMatchObject({ platformAdmin: true, active: false });
    expect(await world.accounts.findById(2_000_000_000)).toBeNull();
  });

  it('answers no account for an e-mail with a NUL (the sign-in form passes what was typed), never an error', async () => {
    const email = `${slug('runner')}@example.org`;
    await world.accounts.findOrCreate(email);
    await expect(world.accounts.findByEmail(`${email}\u0000`)).resolves.toBeNull();
  });
});

describe.each(WORLDS)('MembershipsRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('invites, activates, changes roles, counts admins and removes members', async () => {
    const { orgId } = await anEvent(world);
    const other = await anEvent(world);
    const admin = await world.accounts.findOrCreate(`${slug('admin')}@example.org`);
    const invited = await world.accounts.findOrCreate(`${slug('invited')}@example.org`);
    expect(await world.memberships.upsert(orgId, admin.id, 'admin', 'active')).toMatchObject({
      orgId,
      accountId: admin.id,
      email: admin.email,
      role: 'admin',
      status: 'active',
    });
    await world.memberships.upsert(orgId, invited.id, 'user', 'pending');
    await world.memberships.upsert(other.orgId, invited.id, 'admin', 'pending');
    expect(await world.memberships.activeRoles(invited.id)).toEqual({});
    expect(await world.memberships.activeOrganisations(invited.id)).toEqual([]);
    expect((await world.memberships.listForOrganisation(orgId)).map((m) => [m.accountId, m.status])).toEqual([
      [admin.id, 'active'],
      [invited.id, 'pending'],
    ]);
    await world.memberships.activatePending(invited.id);
    expect(await world.memberships.activeRoles(invited.id)).toEqual({ [orgId]: 'user', [other.orgId]: 'admin' });
    const organisations = await world.memberships.activeOrganisations(invited.id);
    expect(organisations.sort((a, b) => a.orgId - b.orgId)).toEqual([
      { orgId, name: 'Runners', slug: (await world.organisations.findById(orgId))!.slug, role: 'user' },
      {
        orgId: other.orgId,
        name: 'Runners',
        slug: (await world.organisations.findById(other.orgId))!.slug,
        role: 'admin',
      },
    ]);
    expect(await world.memberships.countActiveAdmins(orgId)).toBe(1);
    expect(await world.memberships.setRole(orgId, invited.id, 'admin')).toMatchObject({
      role: 'admin',
      status: 'active',
    });
    expect(await world.memberships.countActiveAdmins(orgId)).toBe(2);
    // An upsert of an existing membership changes it, never adds a second.
    await world.memberships.upsert(orgId, invited.id, 'user', 'active');
    expect(await world.memberships.listForOrganisation(orgId)).toHaveLength(2);
    expect((await world.memberships.find(orgId, invited.id))?.role).toBe('user');
    expect(await world.memberships.setRole(orgId, 2_000_000_000, 'admin')).toBeNull();
    expect(await world.memberships.remove(orgId, invited.id)).toBe(true);
    expect(await world.memberships.remove(orgId, invited.id)).toBe(false);
    expect(await world.memberships.find(orgId, invited.id)).toBeNull();
  });
});

const aVideo = (eventId: number, fields: Partial<NewVideo> = {}): NewVideo => {
  const id = newId();
  return {
    id,
    eventId,
    sourceKey: `inbox/${id}.mp4`,
    storageKey: `videos/${eventId}/${id}.mp4`,
    originalFileName: 'cam.mp4',
    ...fields,
  };
};
const VIDEO_FACE = {
  timeSeconds: 2,
  embedding: Buffer.alloc(512, 3),
  score: 0.9,
  descriptorVersion: 4,
  quality: 0.7,
  track: 1,
};

describe.each(WORLDS)('VideosRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  it('lists videos in upload order, knows their source keys, finds them by id and indexed', async () => {
    const { eventId } = await anEvent(world);
    const first = await world.videos.insert(aVideo(eventId));
    const second = await world.videos.insert(aVideo(eventId));
    expect(first).toMatchObject({ id: expect.any(String), status: 'uploaded' });
    expect((await world.videos.listByEvent(eventId)).map((v) => v.id)).toEqual([first.id, second.id]);
    expect(await world.videos.listByEvent((await anEvent(world)).eventId)).toEqual([]);
    expect(await world.videos.hasSourceKey(eventId, first.sourceKey)).toBe(true);
    expect(await world.videos.hasSourceKey(eventId, 'inbox/other.mp4')).toBe(false);
    expect((await world.videos.findWithEvent(first.id))?.event.id).toBe(eventId);
    expect(await world.videos.findWithEvent(newId())).toBeNull();
    expect((await world.videos.findByIds([second.id, newId()])).map((v) => v.id)).toEqual([second.id]);
    expect(await world.videos.findByIds([])).toEqual([]);
    expect(await world.videos.countsOfEvents([eventId, eventId + 100_000])).toEqual([
      { eventId, total: 2, indexed: 0, failed: 0 },
    ]);
    await world.videos.markIndexed(second.id, {
      durationSeconds: 10,
      width: 1280,
      height: 720,
      sampleFps: 1,
      shotChanges: [],
    });
    expect((await world.videos.findIndexed([first.id, second.id])).map((v) => v.id)).toEqual([second.id]);
    expect(await world.videos.findIndexed([])).toEqual([]);
  });

  it('indexes: faces added and loaded by id, a restart drops them, failure only before indexed, reindexing', async () => {
    const { eventId } = await anEvent(world);
    const video = await world.videos.insert(aVideo(eventId));
    await world.videos.startIndexing(video.id);
    await world.videos.addFaces(video.id, eventId, [
      VIDEO_FACE,
      { ...VIDEO_FACE, timeSeconds: 4, descriptorVersion: 3, track: 2 },
    ]);
    await world.videos.setProgress(video.id, 0.5);
    expect((await world.videos.findWithEvent(video.id))?.indexProgress).toBeCloseTo(0.5);
    const faces = await world.videos.facesAfter(eventId, '0', 10);
    expect(faces.map((f) => [f.ref, f.group, f.version])).toEqual([
      [`${video.id}@2`, `${video.id}#1`, 4],
      [`${video.id}@4`, `${video.id}#2`, 3],
    ]);
    expect(faces[0].quality).toBeCloseTo(0.7);
    expect((await world.videos.facesAfter(eventId, faces[0].id, 10)).map((f) => f.id)).toEqual([faces[1].id]);
    expect(await world.videos.facesAfter(eventId, '0', 10, [faces[0].id])).toHaveLength(1);
    expect(await world.videos.facesAfter(eventId, '9007199254740993', 10)).toEqual([]);
    expect(await world.videos.withFacesOlderThan(eventId, 4)).toEqual([video.id]);
    expect(await world.videos.eventsWithFacesOlderThan(4)).toContain(eventId);
    await world.videos.startIndexing(video.id);
    expect(await world.videos.facesAfter(eventId, '0', 10)).toEqual([]);
    expect(await world.videos.eventsWithFacesOlderThan(4)).not.toContain(eventId);
    await world.videos.markFailed(video.id, 'x'.repeat(600));
    const failed = await world.videos.findWithEvent(video.id);
    expect([failed?.status, failed?.error?.length]).toEqual(['failed', 500]);
    await world.videos.markIndexed(video.id, {
      durationSeconds: 10,
      width: 1280,
      height: 720,
      sampleFps: 1,
      shotChanges: [],
    });
    await world.videos.markFailed(video.id, 'late');
    expect((await world.videos.findWithEvent(video.id))?.status).toBe('indexed');
    await world.videos.markForReindexing(video.id);
    expect((await world.videos.findWithEvent(video.id))?.status).toBe('uploaded');
  });
});

describe.each(WORLDS)('ClipRequestsRepository: %s', (_name, makeWorld) => {
  let world: World;
  beforeEach(() => {
    world = makeWorld();
  });

  const started = (orgId: number, eventId: number, requestId: string, generation: number) => ({
    eventId,
    requestId,
    orgId,
    status: 'processing' as const,
    embedding: Buffer.alloc(512, 4),
    matches: [{ videoId: newId(), times: [1, 2] }],
    generation,
    finishedAt: null,
  });

  it('starts, restarts and finishes only the current run, once', async () => {
    const { orgId, eventId } = await anEvent(world);
    const requestId = newId();
    await world.clipRequests.start(started(orgId, eventId, requestId, 1));
    const found = await world.clipRequests.find({ eventId, requestId });
    expect([found?.status, found?.generation, found?.event.id]).toEqual(['processing', 1, eventId]);
    expect((await world.clipRequests.find({ eventId: undefined, requestId }))?.generation).toBe(1);
    expect(await world.clipRequests.find({ eventId: (await anEvent(world)).eventId, requestId })).toBeNull();
    await world.clipRequests.start(started(orgId, eventId, requestId, 2));
    expect(await world.clipRequests.finish({ eventId, requestId }, 1, { status: 'completed', error: null })).toBe(
      false,
    );
    expect(
      await world.clipRequests.finish({ eventId, requestId }, 2, {
        status: 'clip_failed',
        error: 'e'.repeat(600),
        clipErrors: [],
      }),
    ).toBe(true);
    expect(await world.clipRequests.finish({ eventId, requestId }, 2, { status: 'completed', error: null })).toBe(
      false,
    );
    const ended = await world.clipRequests.find({ eventId, requestId });
    expect([ended?.status, ended?.error?.length, !!ended?.finishedAt]).toEqual(['clip_failed', 500, true]);
    expect(
      await world.clipRequests.finish({ eventId, requestId: newId() }, 1, { status: 'completed', error: null }),
    ).toBe(false);
  });

  it('keeps clips of a request in order with their source, expires the due ones once, deletes them', async () => {
    const { orgId, eventId } = await anEvent(world);
    const requestId = newId();
    await world.clipRequests.start(started(orgId, eventId, requestId, 1));
    const video = await world.videos.insert(aVideo(eventId));
    const now = at('2026-05-17T12:00:00Z');
    const due = {
      id: newId(),
      eventId,
      requestId,
      videoId: video.id,
      startSeconds: 1,
      endSeconds: 4,
      storageKey: `clips/${newId()}.mp4`,
      expiresAt: at('2026-05-17T11:00:00Z'),
    };
    const kept = {
      ...due,
      id: newId(),
      startSeconds: 6,
      endSeconds: 9,
      storageKey: `clips/${newId()}.mp4`,
      expiresAt: null,
    };
    await world.clipRequests.addClip(due);
    await world.clipRequests.addClip(kept);
    const clips = await world.clipRequests.clipsOf(eventId, requestId);
    expect(clips.map((c) => [c.id, c.sourceKey, c.downloadStatus])).toEqual([
      [due.id, video.sourceKey, 'ready'],
      [kept.id, video.sourceKey, 'ready'],
    ]);
    expect(await world.clipRequests.clipsOf(eventId, newId())).toEqual([]);
    const expiring = (await world.clipRequests.dueForExpiry(now, 100)).filter(
      (c) => c.id === due.id || c.id === kept.id,
    );
    expect(expiring.map((c) => ({ id: c.id, storageKey: c.storageKey }))).toEqual([
      { id: due.id, storageKey: due.storageKey },
    ]);
    await world.clipRequests.markExpired(due.id);
    expect((await world.clipRequests.dueForExpiry(now, 100)).map((c) => c.id)).not.toContain(due.id);
    expect((await world.clipRequests.clipsOf(eventId, requestId)).map((c) => c.downloadStatus)).toEqual([
      'expired',
      'ready',
    ]);
    expect((await world.clipRequests.deleteClips(eventId, requestId)).sort()).toEqual(
      [due.storageKey, kept.storageKey].sort(),
    );
    expect(await world.clipRequests.clipsOf(eventId, requestId)).toEqual([]);
    expect(await world.clipRequests.deleteClips(eventId, requestId)).toEqual([]);
  });
});
