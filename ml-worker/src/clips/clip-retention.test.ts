import { Logger } from '@em/core';
import { InMemoryClipRequestsRepository, InMemoryObjectStore } from '@em/core/testing';
import { ClipRetention } from './clip-retention';

const logger = { info: () => undefined } as unknown as Logger;
const now = new Date('2026-06-02T12:00:00Z');

async function setup(count: { expired: number; later: number; forever: number }) {
  const clips = new InMemoryClipRequestsRepository();
  const store = new InMemoryObjectStore();
  const add = async (id: string, expiresAt: Date | null) => {
    await clips.addClip({
      id,
      eventId: 7,
      requestId: 'r',
      videoId: 'v',
      startSeconds: 0,
      endSeconds: 5,
      storageKey: `public/7/clips/r/${id}.mp4`,
      expiresAt,
    });
    await store.put(`public/7/clips/r/${id}.mp4`, Buffer.from('mp4'), 'video/mp4');
  };
  for (let i = 0; i < count.expired; i++) await add(`old-${i}`, new Date(now.getTime() - 1000));
  for (let i = 0; i < count.later; i++) await add(`new-${i}`, new Date(now.getTime() + 1000));
  for (let i = 0; i < count.forever; i++) await add(`kept-${i}`, null);
  return { clips, store, retention: new ClipRetention(clips, store.asStore, logger) };
}

describe('ClipRetention', () => {
  it('deletes the files of clips past their expiry and marks them expired; others keep their files', async () => {
    const s = await setup({ expired: 2, later: 1, forever: 1 });
    expect(await s.retention.sweep(now)).toBe(2);
    expect(s.clips.clips.map((c) => [c.id, c.downloadStatus])).toEqual([
      ['old-0', 'expired'],
      ['old-1', 'expired'],
      ['new-0', 'ready'],
      ['kept-0', 'ready'],
    ]);
    expect([...s.store.objects.keys()].sort()).toEqual(['public/7/clips/r/kept-0.mp4', 'public/7/clips/r/new-0.mp4']);
    expect(await s.retention.sweep(now)).toBe(0);
  });

  it('sweeps more than one batch', async () => {
    const s = await setup({ expired: 450, later: 0, forever: 0 });
    expect(await s.retention.sweep(now)).toBe(450);
    expect(s.store.objects.size).toBe(0);
  });
});
