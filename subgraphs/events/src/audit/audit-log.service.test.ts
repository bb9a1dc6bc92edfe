import { auditActor } from '@em/core';
import { InMemoryAuditLogRepository } from '@em/core/testing';
import { callers } from '../test-principals';
import { AuditLogService } from './audit-log.service';

async function setup() {
  const audit = new InMemoryAuditLogRepository();
  for (let i = 1; i <= 3; i++) {
    await audit.record({
      orgId: 7,
      eventId: i === 3 ? 6 : 5,
      actor: auditActor(callers.admin(7)),
      action: 'photo.hide',
      photoId: null,
      detail: { i },
    });
  }
  await audit.record({
    orgId: 8,
    eventId: 9,
    actor: auditActor(callers.admin(8)),
    action: 'photo.delete',
    photoId: null,
    detail: null,
  });
  return { audit, service: new AuditLogService(audit) };
}

describe('AuditLogService', () => {
  it('pages the organisation entries newest first, of one event when asked', async () => {
    const { service } = await setup();
    const first = await service.page(callers.admin(7), 7, null, 2);
    expect(first.entries.map((e) => e.detail)).toEqual([{ i: 3 }, { i: 2 }]);
    expect(first.hasNextPage).toBe(true);
    const rest = await service.page(callers.admin(7), 7, null, 2, first.endCursor);
    expect(rest.entries.map((e) => e.detail)).toEqual([{ i: 1 }]);
    expect(rest.hasNextPage).toBe(false);
    expect((await service.page(callers.admin(7), 7, 5)).entries.map((e) => e.detail)).toEqual([{ i: 2 }, { i: 1 }]);
  });

  it('is read by the organisation admins only: never a member, a key, another organisation', async () => {
    const { service } = await setup();
    for (const caller of [callers.user(7), callers.key(7), callers.admin(8), callers.readOnlyAdmin(7)]) {
      await expect(service.page(caller, 7)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    expect((await service.page(callers.platform(), 7)).entries).toHaveLength(3);
  });

  it('refuses a bad page size or cursor (400)', async () => {
    const { service } = await setup();
    for (const first of [0, 201])
      await expect(service.page(callers.admin(7), 7, null, first)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    for (const after of ['abc', '-1', '0', '1'.repeat(30)])
      await expect(service.page(callers.admin(7), 7, null, 10, after)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
      });
  });
});
