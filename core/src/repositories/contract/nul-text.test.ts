import 'reflect-metadata';
import { AccountsRepository, SqlAccountsRepository } from '../accounts.repository';
import { InMemoryAccountsRepository } from '../fakes/accounts.fake';
import { newId } from '../../ids';
import { SqlEventsRepository } from '../events.repository';
import { SqlOrganisationsRepository } from '../organisations.repository';
import { SqlPhotosRepository } from '../photos.repository';
import { startTestDatabase, TestDatabase } from './test-database';

/**
 * The attack (found by the review of 2026-12-01, each test failing before its mend): the embedded provider's sign-in form hands the typed e-mail, after
 * trim/lowercase only, to `findByEmail`. An anonymous `email=a%00b` (a NUL, which Postgres text cannot hold) makes
 * Postgres throw (22021 invalid byte sequence), so the sign-in answers 500 "Something went wrong" and logs an error
 * per request, where the in-memory fake every service test uses answers null ("Wrong e-mail or password").
 * No other entry point of the platform lets a NUL reach SQL (the gateway's NUL screen).
 */
describe('accounts by e-mail with a NUL (the sign-in form)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 180_000);
  afterAll(async () => db?.stop());

  it.each([
    ['SQL', () => new SqlAccountsRepository(() => db.orm.em.fork()) as AccountsRepository],
    ['in memory', () => new InMemoryAccountsRepository() as AccountsRepository],
  ])(
    '%s: answers no account, never an error',
    async (_name, make) => {
      const accounts = make();
      await accounts.findOrCreate('member@club.example');
      await expect(accounts.findByEmail('member@club.example\u0000')).resolves.toBeNull();
    },
    60_000,
  );
});

/**
 * The same for a photo whose EXIF Artist holds a NUL (subgraphs/images/src/pipeline/exif-attack.test.ts): its row
 * cannot be inserted, after its original was stored; importFile rethrows (a 500, and the inbox import stops at it).
 */
describe('a photo row with a NUL in its EXIF photographer name', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 180_000);
  afterAll(async () => db?.stop());

  it('is stored (or refused as bad input by the pipeline before the object is written), never a database error', async () => {
    const source = () => db.orm.em.fork();
    const organisation = await new SqlOrganisationsRepository(source).create({
      name: 'Runners',
      slug: `org-${newId()}`,
    });
    const event = await new SqlEventsRepository(source).create(organisation.id, {
      name: 'City 10K',
      slug: `event-${newId()}`,
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
    });
    const id = newId();
    const insert = new SqlPhotosRepository(source).insert({
      id,
      eventId: event.id,
      contentHash: newId(),
      originalKey: `originals/${event.id}/${id}.jpg`,
      originalFileName: 'a.jpg',
      mimeType: 'image/jpeg',
      fileSize: 1000,
      width: 8,
      height: 8,
      capturedAt: null,
      photographerName: 'Eve\u0000Mallory',
      source: 'upload',
    });
    await expect(insert).resolves.not.toThrow();
  }, 60_000);
});
