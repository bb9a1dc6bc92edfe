import { InMemoryEventsRepository } from '@em/core/testing';
import { callers } from '../test-principals';
import { PingService } from './ping.service';

describe('PingService', () => {
  const events = new InMemoryEventsRepository();
  const live = events.add({ orgId: 1 });
  const off = events.add({ orgId: 1, enabled: false, bibSearch: false, selfieSearch: false });
  const service = new PingService(events);

  it("answers ok for the caller's own event, whatever its feature flags", async () => {
    expect(await service.ping(callers.key(1), 1, live.id)).toEqual({ status: 'ok', orgId: 1, eventId: live.id });
    expect(await service.ping(callers.key(1), 1, off.id)).toEqual({ status: 'ok', orgId: 1, eventId: off.id });
  });

  it("refuses another organisation's key (403), an event of another organisation (403) and none (404)", async () => {
    await expect(service.ping(callers.key(2), 1, live.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.ping(callers.key(2), 2, live.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.ping(callers.key(1), 1, 999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('an event being deleted is gone', async () => {
    const doomed = events.add({ orgId: 1 });
    await events.markDeleting(doomed.id, new Date());
    await expect(service.ping(callers.key(1), 1, doomed.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
