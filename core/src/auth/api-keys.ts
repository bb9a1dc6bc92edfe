import { createHash, randomBytes } from 'node:crypto';

/** Keys look like `emk_<40 base62-ish chars>`; the prefix makes a leaked key recognisable. */
export const API_KEY_PREFIX = 'emk_';

export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

export interface GeneratedApiKey {
  rawKey: string;
  keyHash: string;
  /** What listings show: the first characters, never the whole key. */
  displayPrefix: string;
}

export function generateApiKey(): GeneratedApiKey {
  const rawKey = API_KEY_PREFIX + randomBytes(30).toString('base64url');
  return { rawKey, keyHash: hashApiKey(rawKey), displayPrefix: rawKey.slice(0, API_KEY_PREFIX.length + 6) };
}

/** A syntactically plausible key; anything else is refused without a database lookup. */
export function looksLikeApiKey(value: string): boolean {
  return value.length >= 8 && value.length <= 200 && /^[\x21-\x7e]+$/.test(value);
}
