import type { AuditActor } from '../audit-actor';
import { RepositorySource, repositoryHandle } from './repository-source';

/** What the audit log records of a change. */
export interface NewAuditEntry {
  orgId: number;
  eventId: number | null;
  actor: AuditActor;
  /** What was done: `photo.hide`, `photo.add_bib`, `start_list.import`... */
  action: string;
  photoId: string | null;
  /** What the action needs to be understood later (the bib, the file name, the counts). */
  detail: Record<string, unknown> | null;
}

export interface AuditEntry extends NewAuditEntry {
  id: string;
  /** The account's e-mail, when the actor is an account that still exists. */
  accountEmail: string | null;
  at: Date;
}

/** Every query of `audit_log`. */
export interface AuditLogRepository {
  record(entry: NewAuditEntry): Promise<void>;
  /** The organisation's entries (of one event when given), newest first, with an id below `beforeId`, at most `limit`. */
  page(
    orgId: number,
    filter: { eventId: number | null; beforeId: string | null; limit: number },
  ): Promise<AuditEntry[]>;
}

interface AuditRow {
  id: string;
  organisation_id: number;
  event_id: number | null;
  actor: AuditActor['kind'];
  account_id: number | null;
  api_key_id: number | null;
  action: string;
  photo_id: string | null;
  detail: Record<string, unknown> | null;
  created_at: Date;
  email: string | null;
}

export class SqlAuditLogRepository implements AuditLogRepository {
  private readonly handle;

  constructor(source: RepositorySource) {
    this.handle = repositoryHandle(source);
  }

  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.handle.em().getConnection().execute(sql, params);
  }

  async record(entry: NewAuditEntry): Promise<void> {
    await this.execute(
      `insert into audit_log (organisation_id, event_id, actor, account_id, api_key_id, action, photo_id, detail)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
      [
        entry.orgId,
        entry.eventId,
        entry.actor.kind,
        entry.actor.accountId,
        entry.actor.apiKeyId,
        entry.action,
        entry.photoId,
        entry.detail ? JSON.stringify(entry.detail) : null,
      ],
    );
  }

  async page(
    orgId: number,
    filter: { eventId: number | null; beforeId: string | null; limit: number },
  ): Promise<AuditEntry[]> {
    const rows = await this.execute<AuditRow>(
      `select l.id::text as id, l.organisation_id, l.event_id, l.actor, l.account_id, l.api_key_id, l.action, l.photo_id::text as photo_id,
              l.detail, l.created_at, a.email
         from audit_log l left join accounts a on a.id = l.account_id
        where l.organisation_id = ? and (?::int is null or l.event_id = ?) and (?::bigint is null or l.id < ?::bigint)
        order by l.id desc limit ?`,
      [orgId, filter.eventId, filter.eventId, filter.beforeId, filter.beforeId, filter.limit],
    );
    return rows.map((r) => ({
      id: r.id,
      orgId: r.organisation_id,
      eventId: r.event_id,
      actor: { kind: r.actor, accountId: r.account_id, apiKeyId: r.api_key_id },
      action: r.action,
      photoId: r.photo_id,
      detail: r.detail,
      accountEmail: r.email,
      at: new Date(r.created_at),
    }));
  }
}
