import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** A device token is a random id (16 bytes) and its MAC (32), base64url, joined by a dot. */
const TOKEN_FORMAT = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
/** A browser remembers the accounts it signed in to last (a shared computer, a member with two accounts). */
const ACCOUNTS_PER_BROWSER = 5;
/** Tokens read from a browser's cookies at most (every value of the cookie's name: one may be tossed in by another host). */
const TOKENS_READ = 16;
const SEPARATOR = '~';

/**
 * The browsers an account signed in from before, known by a token the provider gives at each successful sign-in
 * (OWASP's device cookies): its tries are throttled on their own, so that someone who knows an account's e-mail and
 * sends wrong passwords from elsewhere cannot lock its member out of their own browser. A token names one account and
 * one password of it (its MAC covers the e-mail and the password's stored hash, `credential`: a password change retires
 * every token minted before) and proves nothing else: it opens no session and skips no password. A browser keeps a
 * list of tokens, one per account, the latest first.
 */
export class SignInDevices {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'em-sign-in-devices', 'device token', 32));
  }

  /** The browser's list with a new token for the account of `email` (normalised) first, its older one dropped. */
  remember(list: string | undefined, email: string, credential: string): string {
    const id = randomBytes(16).toString('base64url');
    const others = this.tokens(list).filter((token) => this.idOf(token, email, credential) === null);
    return [`${id}.${this.mac(email, credential, id).toString('base64url')}`, ...others]
      .slice(0, ACCOUNTS_PER_BROWSER)
      .join(SEPARATOR);
  }

  /**
   * The device id the browser's list holds for the account of `email` with its password's stored hash, or null (none,
   * altered, another account's, minted before the password changed).
   */
  deviceOf(list: string | undefined, email: string, credential: string): string | null {
    for (const token of this.tokens(list, TOKENS_READ)) {
      const id = this.idOf(token, email, credential);
      if (id) return id;
    }
    return null;
  }

  /** The list's well-formed tokens, at most `most`. */
  private tokens(list: string | undefined, most = ACCOUNTS_PER_BROWSER): string[] {
    return (list ?? '')
      .split(SEPARATOR)
      .filter((token) => TOKEN_FORMAT.test(token))
      .slice(0, most);
  }

  private idOf(token: string, email: string, credential: string): string | null {
    const parts = TOKEN_FORMAT.exec(token);
    if (!parts) return null;
    const [, id, mac] = parts;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(email, credential, id);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
  }

  private mac(email: string, credential: string, id: string): Buffer {
    return createHmac('sha256', this.key).update(`${email}\n${credential}\n${id}`).digest();
  }
}
