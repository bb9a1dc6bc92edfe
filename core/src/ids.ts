import { randomUUID } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => randomUUID();
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);

/** BIB numbers are stored and searched trimmed, without inner spaces, in upper case (case-insensitive matching). */
export const normaliseBib = (raw: string): string => raw.trim().replace(/\s+/g, '').toUpperCase();
