import { buildSlideshow } from '@em/platform';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, closeDb, expectSuccess, fixtures, info, postForm, sql } from './support/platform';
import { DEMO_PHOTOS, faceCrop } from './support/demo-faces';

/** Shot 1: person A from 0 to 6 s; a cut; shot 2: person B from 6 to 12 s. */
const CUT = 6;

async function addVideo(orgId: number, eventId: number, key: string, file: string): Promise<string> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query:
        'mutation($o: Int!, $e: Int!, $f: Upload, $k: String) { addEventVideo(orgId: $o, eventId: $e, file: $f, sourceKey: $k) { id } }',
      variables: { o: orgId, e: eventId, f: null, k: 'two-shots' },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.f'] }));
  form.append('0', new Blob([readFileSync(file)], { type: 'video/mp4' }), path.basename(file));
  const body = (await (
    await fetch(info.gatewayUrl, {
      method: 'POST',
      headers: { 'x-api-key': key, 'apollo-require-preflight': 'true' },
      body: form,
    })
  ).json()) as { data?: { addEventVideo: { id: string } }; errors?: unknown };
  if (!body.data) throw new Error(`addEventVideo failed: ${JSON.stringify(body.errors)}`);
  return body.data.addEventVideo.id;
}

async function until<T>(read: () => Promise<T | null>, what: string): Promise<T> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('video moments end where the person leaves the screen (shot changes)', () => {
  let orgId: number;
  let key: string;
  let eventId: number;
  let videoId: string;

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    // The event's default clip padding (2 s each side): a window padded past A's last frame would run into B's shot.
    eventId = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'em-shots-')), 'two-shots.mp4');
    await buildSlideshow(
      [
        { image: readFileSync(path.join(DEMO_PHOTOS, 'sample5.jpg')), seconds: CUT },
        { image: readFileSync(path.join(DEMO_PHOTOS, 'sample6.jpg')), seconds: 6 },
      ],
      file,
    );
    videoId = await addVideo(orgId, eventId, key, file);
    rmSync(path.dirname(file), { recursive: true, force: true });
    await until(async () => {
      const [row] = await sql('select status, error from videos where id = $1', [videoId]);
      if (row.status === 'failed') throw new Error(`indexing failed: ${row.error}`);
      return row.status === 'indexed' ? true : null;
    }, 'video indexed');
  }, 240_000);
  afterAll(closeDb);

  it('the index records the cut, and no face track continues across it', async () => {
    const [video] = await sql('select shot_changes from videos where id = $1', [videoId]);
    expect(video.shot_changes).toEqual([CUT]);
    const crossing = await sql(
      'select track from video_faces where video_id = $1 group by track having min(time_seconds) < $2 and max(time_seconds) >= $2',
      [videoId, CUT],
    );
    expect(crossing).toEqual([]);
  });

  it("a selfie of A: the moment ends at the cut, not in B's shot, though the event pads windows by 2 s", async () => {
    const start = expectSuccess(
      await postForm(`/${orgId}/event/${eventId}/video-clipping/search-by-selfie`, key, await faceCrop('sample5.jpg')),
    );
    const result = await until(async () => {
      const data = expectSuccess(await api(`/${orgId}/event/${eventId}/video-clipping/${start.request_id}`, { key }));
      return data.status === 'processing' ? null : data;
    }, 'clipping');
    expect(result.status).toBe('completed');
    expect(result.videos).toHaveLength(1);
    const [clip] = await sql('select start_seconds, end_seconds from clips where clip_request_request_id = $1', [
      start.request_id,
    ]);
    expect(clip.start_seconds).toBe(0);
    // A is on screen for the sampled frames 0-5.5 s: the window covers 5.5's interval and stops at the cut.
    expect(clip.end_seconds).toBeGreaterThanOrEqual(CUT - 0.5);
    expect(clip.end_seconds).toBeLessThanOrEqual(CUT);
    expect(result.videos[0].end_time).toBe('00:00:06');
  }, 180_000);
});
