import { AppError, Principal } from '@em/core';
import { AuditEntry, AuditLogRepository, guardOrganisationOperation } from '@em/core/data';

export const AUDIT_LOG_PAGE = { default: 50, max: 200 };

export interface AuditLogPage {
  entries: AuditEntry[];
  /** Pass as `after` for the next (older) page; null at the end. */
  endCursor: string | null;
  hasNextPage: boolean;
}

/** The organisation's audit log (photo review, start list imports), newest first: its admins only. */
export class AuditLogService {
  constructor(private readonly audit: AuditLogRepository) {}

  async page(
    principal: Principal,
    orgId: number,
    eventId?: number | null,
    first?: number | null,
    after?: string | null,
  ): Promise<AuditLogPage> {
    guardOrganisationOperation(principal, 'auditLog', orgId);
    const limit = first ?? AUDIT_LOG_PAGE.default;
    if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LOG_PAGE.max) {
      throw new AppError('BAD_USER_INPUT', `first must be 1 to ${AUDIT_LOG_PAGE.max}`, { field: 'first' });
    }
    if (after !== null && after !== undefined && !/^[1-9]\d{0,17}$/.test(after)) {
      throw new AppError(
        'BAD_USER_INPUT',
        'after is not a cursor of this log (pass the endCursor of the previous page)',
        { field: 'after' },
      );
    }
    const rows = await this.audit.page(orgId, { eventId: eventId ?? null, beforeId: after ?? null, limit: limit + 1 });
    const entries = rows.slice(0, limit);
    return {
      entries,
      endCursor: entries.length ? entries[entries.length - 1].id : null,
      hasNextPage: rows.length > limit,
    };
  }
}
