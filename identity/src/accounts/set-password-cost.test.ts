import { InMemoryAccountsRepository, InMemoryLocalCredentialsRepository } from '@em/core/testing';
import { randomBytes } from 'node:crypto';
import * as passwords from './passwords';
import { LocalAccountsService } from './local-accounts.service';
import { SignInDevices } from './sign-in-devices';
import { MemorySignInCounters, SignInThrottle } from './sign-in-throttle';

jest.mock('./passwords', () => {
  const actual = jest.requireActual('./passwords');
  return { ...actual, hashPassword: jest.fn(actual.hashPassword) };
});

/**
 * The attack (found by the review of 2026-12-01, each test failing before its mend): POST /set-password (anonymous: no interaction, no cookie, no throttle)
 * hashes the posted password with scrypt (N=2^15, r=8, p=3: 32 MiB and about a quarter of a second of a libuv thread)
 * before it looks the token up. Any 20 characters of [A-Za-z0-9_-] as a token and any 10 as a password are enough:
 * a few dozen such posts a second keep every libuv thread of the provider busy, so members' sign-ins (scrypt too)
 * wait behind them. The sign-in form counts a try before its scrypt; this form does not count at all.
 */
describe('the set-password form before its token is known', () => {
  it('hashes no password for a token that is not valid (used, expired, never issued)', async () => {
    const service = new LocalAccountsService(
      new InMemoryAccountsRepository(),
      new InMemoryLocalCredentialsRepository(),
      new SignInThrottle(new MemorySignInCounters(), { perAccount: 5, perAddress: 30, windowSeconds: 1800 }),
      new SignInDevices('a test secret of the identity provider'),
      { setPasswordLinkHours: 72 },
    );
    const hash = passwords.hashPassword as jest.Mock;
    hash.mockClear();
    for (let i = 0; i < 3; i++)
      await expect(
        service.setPassword(randomBytes(32).toString('base64url'), 'any ten characters'),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Before the mend: 3 scrypt hashes for 3 made-up tokens.
    expect(hash).not.toHaveBeenCalled();
  }, 120_000);
});
