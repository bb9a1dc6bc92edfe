import { Principal } from '@em/core';
import { guardOperation, Orm } from '@em/core/data';
import type { PingType } from './ping.types';

/** Checks key, host, organisation and event mapping without touching photo data. */
export class PingService {
  constructor(private readonly orm: Orm) {}

  async ping(principal: Principal, orgId: number, eventId: number): Promise<PingType> {
    await guardOperation(this.orm.em, principal, 'ping', orgId, eventId);
    return { status: 'ok', orgId, eventId };
  }
}
