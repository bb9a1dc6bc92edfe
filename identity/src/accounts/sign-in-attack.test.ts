import { InMemoryAccountsRepository, InMemoryLocalCredentialsRepository } from '@em/core/testing';
import { LocalAccountsService } from './local-accounts.service';
import { SignInDevices } from './sign-in-devices';
import { MemorySignInCounters, SignInThrottle } from './sign-in-throttle';

/**
 * The attack (found by the review of 2026-12-01, each test failing before its mend): device tokens as a way around the sign-in throttle.
 * Every successful sign-in mints a new, independent device token; none is ever retired (no expiry in the token, no
 * server-side record, not bound to the password), and a try carrying one counts against that device only: not
 * against the account, not against the address. Whoever knew a password once (a leaked password, a former colleague
 * on a shared account, a stolen laptop's browser profile) keeps, after the member changes it, as many guesses of the
 * new password per window as tokens they minted, times the per-account limit, from a single address.
 */
describe('sign-in device tokens after a password change', () => {
  const limits = { perAccount: 2, perAddress: 3, windowSeconds: 1800 };

  function setup() {
    const accounts = new InMemoryAccountsRepository();
    const credentials = new InMemoryLocalCredentialsRepository();
    const service = new LocalAccountsService(
      accounts,
      credentials,
      new SignInThrottle(new MemorySignInCounters(), limits),
      new SignInDevices('a test secret of the identity provider'),
      { setPasswordLinkHours: 72 },
    );
    return { service };
  }

  it('gives someone who minted tokens with the old password no more guesses of the new one than the limits', async () => {
    const { service } = setup();
    await service.setPasswordAsOperator('member@club.example', 'the leaked old password');
    // The attacker, holding the leaked password, signs in a few times and keeps every token (one address).
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) {
      const outcome = await service.signIn('member@club.example', 'the leaked old password', '203.0.113.66');
      if (!outcome.ok) throw new Error(`sign-in ${i} failed`);
      tokens.push(outcome.devices);
    }
    // The member notices and changes the password (a new set-password link).
    const { token } = await service.issueSetPasswordToken('member@club.example');
    await service.setPassword(token, 'the new secret password');

    // The attacker now guesses the new password from the same single address, one token after another.
    let passwordsChecked = 0;
    for (const device of tokens)
      for (let i = 0; i < limits.perAccount; i++) {
        const outcome = await service.signIn(
          'member@club.example',
          `guess ${device.slice(0, 4)} ${i}`,
          '203.0.113.66',
          device,
        );
        if (!outcome.ok && outcome.reason === 'invalid') passwordsChecked++;
      }
    // Without device tokens one address checks at most min(perAccount, perAddress) = 2 passwords of one account per
    // window. With tokens minted under the old password it checks 4 x 2 = 8 (and N x 2 with N tokens).
    expect(passwordsChecked).toBeLessThanOrEqual(Math.min(limits.perAccount, limits.perAddress));
  }, 240_000);
});
