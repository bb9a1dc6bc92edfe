import { Principal } from '@em/core';
import { accessOnly, guardOperation, EventsRepository } from '@em/core/data';
import type { PingType } from './ping.types';

/** Checks key, host, organisation and event mapping without touching photo data. */
export class PingService {
  constructor(private readonly events: EventsRepository) {}

  async ping(principal: Principal, orgId: number, eventId: number): Promise<PingType> {
    await guardOperation(accessOnly(this.events), principal, 'ping', orgId, eventId);
    return { status: 'ok', orgId, eventId };
  }
}
