import type { Principal } from './principal';

/** Who made a change, as the audit log records it. */
export interface AuditActor {
  /** `operator`: the platform's operator at the CLI (an account principal without an account). */
  kind: 'account' | 'api_key' | 'operator';
  accountId: number | null;
  apiKeyId: number | null;
}

export function auditActor(principal: Principal): AuditActor {
  if (principal.kind === 'api_key') return { kind: 'api_key', accountId: null, apiKeyId: principal.apiKeyId ?? null };
  if (principal.accountId === undefined) return { kind: 'operator', accountId: null, apiKeyId: null };
  return { kind: 'account', accountId: principal.accountId, apiKeyId: null };
}
