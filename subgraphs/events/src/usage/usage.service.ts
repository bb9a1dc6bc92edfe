import { dateArgument, Principal } from '@em/core';
import { guardOrganisationOperation, UsageRepository, UsageRow } from '@em/core/data';
import { invalid } from '../events/event-settings';

export interface UsageReport {
  from: Date;
  to: Date;
  rows: UsageRow[];
  totals: Omit<UsageRow, 'eventId' | 'month'>;
}

const MAX_SPAN_MS = 5 * 366 * 24 * 3600 * 1000;

/** Usage per event and month: billed face searches (new request_ids only), photos processed, videos indexed, clips made. */
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** [from, to): by default the current month and the eleven before it. */
  async report(principal: Principal, orgId: number, from?: Date | null, to?: Date | null): Promise<UsageReport> {
    guardOrganisationOperation(principal, 'usage', orgId);
    const now = this.now();
    const end = dateArgument('to', to) ?? now;
    const start = dateArgument('from', from) ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()))
      throw invalid('from', 'from and to must be dates');
    if (start >= end) throw invalid('from', 'from must be before to');
    if (end.getTime() - start.getTime() > MAX_SPAN_MS) throw invalid('to', 'a usage report covers at most five years');
    const rows = await this.usage.perEventAndMonth(orgId, start, end);
    const totals = { faceSearchesBilled: 0, photosProcessed: 0, videosIndexed: 0, clipsMade: 0 };
    for (const row of rows)
      for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += row[key];
    return { from: start, to: end, rows, totals };
  }
}
