import { Logger } from '@em/core';
import { Clip, ClipRequest, Orm, Video } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import type { Redis } from 'ioredis';
import { ClipCutter } from './cut-clips';

const EVENT = {
  id: 7,
  clipMaxGapSeconds: 3,
  clipMinSegmentSeconds: 1,
  clipPaddingStartSeconds: 0,
  clipPaddingEndSeconds: 0,
  clipMaxDurationSeconds: 30,
  clipRetentionHours: null,
};

/** The rows the clip job reads, in memory; `updates` records the terminal state it writes. */
function fakes(videos: Array<Partial<Video> & { id: string }>, eventSettings: Partial<typeof EVENT> = {}) {
  const request = {
    requestId: '0b7e1c52-4a36-4d0e-9b59-3f1f4b8a2d11',
    event: { ...EVENT, ...eventSettings },
    generation: 1,
    status: 'processing',
    matches: [{ videoId: 'v-1', times: [10, 11, 12, 13, 14, 15] }],
  };
  const updates: Array<Record<string, unknown>> = [];
  const em = {
    fork: () => em,
    findOne: async (entity: unknown) => (entity === ClipRequest ? request : null),
    find: async (entity: unknown) => (entity === Video ? videos : entity === Clip ? [] : []),
    nativeUpdate: async (_entity: unknown, _where: unknown, values: Record<string, unknown>) => {
      updates.push(values);
      return 1;
    },
    nativeDelete: async () => 0,
  };
  const orm = { em } as unknown as Orm;
  const redis = { publish: async () => 1 } as unknown as Redis;
  const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  const cutter = new ClipCutter(orm, {} as ObjectStore, redis, logger);
  return { cutter, request, updates };
}

describe('ClipCutter', () => {
  it('ends no_matches when the matched videos were deleted before the clip job ran (the selfie matches nothing in the event videos)', async () => {
    const { cutter, request, updates } = fakes([]);
    expect(await cutter.run(EVENT.id, request.requestId, 1)).toBe('no_matches');
    expect(updates).toEqual([expect.objectContaining({ status: 'no_matches', clipErrors: [] })]);
  });

  it('ends no_segments, with the explanation, when the videos are there but the sightings are too sparse', async () => {
    const { cutter, request, updates } = fakes([{ id: 'v-1', durationSeconds: 60, sampleFps: 2 }], { clipMinSegmentSeconds: 5 });
    request.matches = [{ videoId: 'v-1', times: [10] }];
    expect(await cutter.run(EVENT.id, request.requestId, 1)).toBe('no_segments');
    expect(updates[0]).toMatchObject({ status: 'no_segments', clipErrors: [{ videoKey: null, error: expect.stringContaining('1 sampled frame'), statusCode: null }] });
  });

  it('skips a run of an older generation', async () => {
    const { cutter, request, updates } = fakes([]);
    expect(await cutter.run(EVENT.id, request.requestId, 2)).toBe('skipped');
    expect(updates).toEqual([]);
  });
});
