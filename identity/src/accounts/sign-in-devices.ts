import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** A device token is a random id (16 bytes) and its MAC (32), base64url, joined by a dot. */
const TOKEN_FORMAT = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/**
 * The browsers an account signed in from before, known by a token the provider gives at each successful sign-in
 * (OWASP's device cookies): its tries are throttled on their own, so that someone who knows an account's e-mail and
 * sends wrong passwords from elsewhere cannot lock its member out of their own browser. A token names one account (its
 * MAC covers the e-mail) and proves nothing else: it opens no session and skips no password.
 */
export class SignInDevices {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'em-sign-in-devices', 'device token', 32));
  }

  /** A new token for a browser that has just signed in to the account of `email` (normalised). */
  issue(email: string): string {
    const id = randomBytes(16).toString('base64url');
    return `${id}.${this.mac(email, id).toString('base64url')}`;
  }

  /** The device id a token names for the account of `email`, or null (absent, altered, another account's). */
  deviceOf(token: string | undefined, email: string): string | null {
    const parts = token ? TOKEN_FORMAT.exec(token) : null;
    if (!parts) return null;
    const [, id, mac] = parts;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(email, id);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
  }

  private mac(email: string, id: string): Buffer {
    return createHmac('sha256', this.key).update(`${email}\n${id}`).digest();
  }
}
