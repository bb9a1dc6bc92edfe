import { LoginTransactions } from './login-transaction';

describe('LoginTransactions (the sign-in cookie)', () => {
  const logins = new LoginTransactions('the-dashboard-client-secret');
  const tx = { codeVerifier: 'verifier-1', nonce: 'nonce-1', returnTo: '/dashboard/events/7/photos' };
  const now = Date.UTC(2026, 10, 30, 12);

  it('opens what it sealed, for the same state, until it expires', () => {
    const cookie = logins.seal('state-1', tx, 600, now);
    expect(cookie).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cookie).not.toContain('verifier');
    expect(logins.open(cookie, 'state-1', now + 599_000)).toEqual(tx);
    expect(logins.open(cookie, 'state-1', now + 600_000)).toBeNull();
    // Another replica with the same client secret opens it too.
    expect(new LoginTransactions('the-dashboard-client-secret').open(cookie, 'state-1', now)).toEqual(tx);
  });

  it("refuses another sign-in's state, an altered cookie, another secret's and garbage", () => {
    const cookie = logins.seal('state-1', tx, 600, now);
    expect(logins.open(cookie, 'state-2', now)).toBeNull();
    expect(logins.open(cookie, '', now)).toBeNull();
    const raw = Buffer.from(cookie, 'base64url');
    for (const at of [0, 20, raw.length - 1]) {
      const altered = Buffer.from(raw);
      altered[at] ^= 1;
      expect(logins.open(altered.toString('base64url'), 'state-1', now)).toBeNull();
    }
    expect(new LoginTransactions('another-client-secret').open(cookie, 'state-1', now)).toBeNull();
    for (const junk of ['', 'x', 'a'.repeat(40), 'not base64!', 'a'.repeat(5000)])
      expect(logins.open(junk, 'state-1', now)).toBeNull();
  });
});
