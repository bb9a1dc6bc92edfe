import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What the callback needs of the sign-in it answers. */
export interface LoginTransaction {
  codeVerifier: string;
  nonce: string;
  returnTo: string;
}

interface Sealed extends LoginTransaction {
  state: string;
  /** Epoch seconds. */
  expiresAt: number;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Sign-ins in progress, sealed into the browser's sign-in cookie (AES-256-GCM under a key derived from the dashboard's
 * client secret, so every REST adapter replica opens what another sealed): starting a sign-in is anonymous, so it
 * keeps nothing on the server. A callback opens only the transaction its own `state` names, before it expires; the
 * cookie is cleared there and the provider's code works once, so a transaction serves one sign-in.
 */
export class LoginTransactions {
  private readonly key: Buffer;

  constructor(clientSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', clientSecret, 'em-dashboard', 'sign-in transaction cookie v1', 32));
  }

  seal(state: string, tx: LoginTransaction, ttlSeconds: number, now = Date.now()): string {
    const sealed: Sealed = { ...tx, state, expiresAt: Math.floor(now / 1000) + ttlSeconds };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(sealed), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The transaction sealed in `cookie` for `state`, or null (another state, expired, altered or not ours). */
  open(cookie: string, state: string, now = Date.now()): LoginTransaction | null {
    const raw = /^[A-Za-z0-9_-]{1,4096}$/.test(cookie) ? Buffer.from(cookie, 'base64url') : null;
    if (!raw || raw.length <= IV_BYTES + TAG_BYTES) return null;
    let sealed: Sealed;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      sealed = JSON.parse(plain.toString('utf8')) as Sealed;
    } catch {
      return null;
    }
    const expected = Buffer.from(sealed.state);
    const given = Buffer.from(state);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (sealed.expiresAt * 1000 <= now) return null;
    return { codeVerifier: sealed.codeVerifier, nonce: sealed.nonce, returnTo: sealed.returnTo };
  }
}
