import { randomBytes, scrypt as scryptCallback, ScryptOptions, timingSafeEqual } from 'node:crypto';

/** scrypt's cost: N = 2^15, r = 8, p = 3, one of OWASP's equivalent minimums (32 MiB rather than 2^17's 128 MiB). */
const PARAMS = { N: 2 ** 15, r: 8, p: 3, keyLength: 32 } as const;
/** scrypt needs 128 * N * r bytes (32 MiB here), the same as Node's default ceiling: room above it. */
const MAX_MEMORY = 64 * 1024 * 1024;

/** The least and most characters a password may have (the most bounds the hashing work of a request). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

function scrypt(password: string, salt: Buffer, keyLength: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, keyLength, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** A reason the password cannot be used, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `A password needs at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `A password has at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS.keyLength, {
    N: PARAMS.N,
    r: PARAMS.r,
    p: PARAMS.p,
    maxmem: MAX_MEMORY,
  });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`; a malformed stored value never matches. Compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || password.length > PASSWORD_MAX_LENGTH) return false;
  const expected = Buffer.from(hash, 'base64url');
  const params = { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY };
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0) || params.N > 2 ** 20) return false;
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, params);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash to verify against when the account has no password: the answer then takes as long as a real check. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
