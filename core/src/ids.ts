import { randomUUID } from 'node:crypto';
import { AppError } from './errors';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => randomUUID();
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);

/** BIB numbers are stored and searched trimmed, without inner spaces, in upper case (case-insensitive matching). */
export const normaliseBib = (raw: string): string => raw.trim().replace(/\s+/g, '').toUpperCase();

/**
 * The one reading of a `request_id` sent by a client: a UUID, surrounding spaces ignored, in the
 * lower case it is stored in. Null when the value is not a UUID.
 */
export function parseRequestId(value: unknown): string | null {
  const trimmed = typeof value === 'string' ? value.trim() : value;
  return isUuid(trimmed) ? trimmed.toLowerCase() : null;
}

/** parseRequestId, or 400 with `message` when the value is not a UUID. */
export function requireRequestId(value: unknown, message = 'request_id must be a UUID'): string {
  const requestId = parseRequestId(value);
  if (requestId === null) throw new AppError('BAD_REQUEST', message);
  return requestId;
}
