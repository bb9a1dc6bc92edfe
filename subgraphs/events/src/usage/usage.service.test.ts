import { UsageRepository } from '@em/core/data';
import { callers } from '../test-principals';
import { UsageService } from './usage.service';

describe('UsageService', () => {
  const rows = [
    { eventId: 1, month: '2026-04', faceSearchesBilled: 3, photosProcessed: 100, videosIndexed: 1, clipsMade: 2 },
    { eventId: 2, month: '2026-05', faceSearchesBilled: 1, photosProcessed: 10, videosIndexed: 0, clipsMade: 0 },
  ];
  const asked: Array<[number, Date, Date]> = [];
  const repo: UsageRepository = {
    perEventAndMonth: async (orgId, from, to) => (asked.push([orgId, from, to]), rows),
    archiveEvent: async () => undefined,
  };
  const service = new UsageService(repo, () => new Date('2026-11-23T12:00:00Z'));

  it('reports per event and month with totals, the last twelve months by default', async () => {
    const report = await service.report(callers.admin(7), 7);
    expect(report.totals).toEqual({ faceSearchesBilled: 4, photosProcessed: 110, videosIndexed: 1, clipsMade: 2 });
    expect(asked.at(-1)).toEqual([7, new Date('2025-12-01T00:00:00Z'), new Date('2026-11-23T12:00:00Z')]);
  });

  it('is for admins of the organisation only', async () => {
    for (const caller of [callers.key(7), callers.user(7), callers.admin(8)])
      await expect(service.report(caller, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('refuses an empty or too long window', async () => {
    await expect(
      service.report(callers.admin(7), 7, new Date('2026-05-01'), new Date('2026-04-01')),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(
      service.report(callers.admin(7), 7, new Date('2010-01-01'), new Date('2026-04-01')),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});
