import { openDatabase, Orm, SqlPhotosRepository } from '@em/core/data';
import { cfg, closeDb, fixtures, sql } from './support/platform';

/**
 * The face index's load statement against real Postgres: faces in the order of their ids (a
 * batch's last id is where the next batch starts), and the held ids left out. Ids whose text
 * order differs from their number order (9e9 sorts after 1e10 as text) show the difference.
 */
describe('face index load (SqlPhotosRepository.facesAfter)', () => {
  let orm: Orm;
  let eventId: number;
  const ids = ['9000000001', '10000000001', '10000000002'];

  beforeAll(async () => {
    orm = await openDatabase(cfg);
    const { orgId } = await fixtures.organisation();
    eventId = await fixtures.event(orgId, { selfieSearch: true });
    const [photo] = await fixtures.photos(eventId, [{ capturedAt: null }]);
    for (const id of ids) {
      await sql(
        'insert into faces (id, photo_id, event_id, embedding, score, box_x, box_y, box_width, box_height, descriptor_version) values ($1, $2, $3, $4, 0.9, 0, 0, 0.1, 0.1, 2)',
        [id, photo, eventId, Buffer.alloc(512)],
      );
    }
  });

  afterAll(async () => {
    await sql('delete from faces where event_id = $1', [eventId]);
    await orm.close();
    await closeDb();
  });

  it('reads faces in id order, so batches that start after the last id read miss none', async () => {
    const photos = new SqlPhotosRepository(orm);
    const first = await photos.facesAfter(eventId, '0', 1);
    expect(first.map((f) => f.id)).toEqual(['9000000001']);
    const rest = await photos.facesAfter(eventId, first[0].id, 10);
    expect(rest.map((f) => f.id)).toEqual(['10000000001', '10000000002']);
    expect(rest[0]).toMatchObject({ version: 2, quality: null, group: null });
    expect(rest[0].embedding.length).toBe(512);
  });

  it('leaves out the faces the index already holds', async () => {
    const photos = new SqlPhotosRepository(orm);
    expect((await photos.facesAfter(eventId, '0', 10, ['9000000001', '10000000002'])).map((f) => f.id)).toEqual([
      '10000000001',
    ]);
  });
});
