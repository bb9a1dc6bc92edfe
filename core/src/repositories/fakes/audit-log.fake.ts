import type { AuditEntry, AuditLogRepository, NewAuditEntry } from '../audit-log.repository';

/** The audit log in memory (no account e-mails). */
export class InMemoryAuditLogRepository implements AuditLogRepository {
  readonly entries: AuditEntry[] = [];

  async record(entry: NewAuditEntry): Promise<void> {
    this.entries.push({ ...entry, id: String(this.entries.length + 1), accountEmail: null, at: new Date() });
  }

  async page(
    orgId: number,
    filter: { eventId: number | null; beforeId: string | null; limit: number },
  ): Promise<AuditEntry[]> {
    return this.entries
      .filter((e) => e.orgId === orgId && (filter.eventId === null || e.eventId === filter.eventId))
      .filter((e) => filter.beforeId === null || Number(e.id) < Number(filter.beforeId))
      .reverse()
      .slice(0, filter.limit);
  }
}
