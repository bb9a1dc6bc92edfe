import { AppError } from './errors';
import { signPrincipal, verifyPrincipal } from './principal';

const secret = 'a'.repeat(40);
const principal = { orgId: 7, kind: 'api_key' as const, apiKeyId: 3, scopes: [] };

describe('principal tokens', () => {
  it('round-trips a signed principal', () => {
    expect(verifyPrincipal(signPrincipal(principal, secret, 60), secret)).toEqual(principal);
  });

  it('refuses missing, tampered, foreign and expired tokens', () => {
    const token = signPrincipal(principal, secret, 60);
    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...principal, orgId: 8, exp: 9999999999 })).toString('base64url');
    const cases = [
      undefined,
      '',
      'garbage',
      `${forged}.${mac}`,
      `${body}.${mac.slice(0, -2)}AA`,
      signPrincipal(principal, 'b'.repeat(40), 60),
      signPrincipal(principal, secret, 60, Date.now() - 120_000),
    ];
    for (const bad of cases) {
      expect(() => verifyPrincipal(bad, secret)).toThrow(AppError);
    }
  });
});
