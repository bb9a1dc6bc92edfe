import { hashPassword, verifyPassword } from './passwords';
import { InMemoryAccountsRepository, InMemoryLocalCredentialsRepository } from '@em/core/testing';
import { LocalAccountsService, setPasswordLink } from './local-accounts.service';
import { SignInDevices } from './sign-in-devices';
import { MemorySignInCounters, SignInThrottle } from './sign-in-throttle';

// Several scrypt hashes per test (32 MiB each, by design slow): on a loaded machine they exceed the usual 60 s.

function setup(limits = { perAccount: 3, perAddress: 10, windowSeconds: 60 }) {
  const accounts = new InMemoryAccountsRepository();
  const credentials = new InMemoryLocalCredentialsRepository();
  let now = new Date('2026-05-17T09:00:00Z');
  const service = new LocalAccountsService(
    accounts,
    credentials,
    new SignInThrottle(new MemorySignInCounters(), limits),
    new SignInDevices('a test secret of the identity provider'),
    {
      setPasswordLinkHours: 72,
      now: () => now,
    },
  );
  return {
    accounts,
    credentials,
    service,
    later: (hours: number) => (now = new Date(now.getTime() + hours * 3600_000)),
  };
}

describe('passwords', () => {
  it('are scrypt hashes with their parameters and a random salt; only the same password matches', async () => {
    const [a, b] = [await hashPassword('correct horse battery'), await hashPassword('correct horse battery')];
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterx', a)).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
  });
});

describe('LocalAccountsService', () => {
  it('signs in with the password set through a one-time link, which verifies the e-mail', async () => {
    const { service } = setup();
    const { token, email } = await service.issueSetPasswordToken(' Member@Club.example ');
    expect(email).toBe('member@club.example');
    expect(setPasswordLink('http://localhost:4007/', token)).toBe(`http://localhost:4007/set-password?token=${token}`);
    expect(await service.setPasswordTokenEmail(token)).toBe('member@club.example');
    await service.setPassword(token, 'a long enough password');
    await expect(service.setPassword(token, 'another long password')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const outcome = await service.signIn('member@club.example', 'a long enough password', '203.0.113.7');
    expect(outcome).toEqual({ ok: true, subject: 'embedded|1', devices: expect.any(String) });
    expect(await service.claims('embedded|1')).toEqual({
      sub: 'embedded|1',
      email: 'member@club.example',
      email_verified: true,
    });
  });

  it('refuses short passwords and expired links', async () => {
    const { service, later } = setup();
    const { token } = await service.issueSetPasswordToken('member@club.example');
    await expect(service.setPassword(token, 'short')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    later(73);
    await expect(service.setPassword(token, 'a long enough password')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers the same for an unknown account, no password, an inactive account and a wrong password', async () => {
    const { service, accounts } = setup({ perAccount: 100, perAddress: 100, windowSeconds: 60 });
    await service.setPasswordAsOperator('admin@club.example', 'the admin password');
    accounts.add({ email: 'nopassword@club.example' });
    const outcomes = [
      await service.signIn('nobody@club.example', 'the admin password', '203.0.113.7'),
      await service.signIn('nopassword@club.example', 'the admin password', '203.0.113.7'),
      await service.signIn('admin@club.example', 'not the password', '203.0.113.7'),
    ];
    expect(outcomes).toEqual(Array(3).fill({ ok: false, reason: 'invalid' }));
    await accounts.setActive(1, false);
    expect(await service.signIn('admin@club.example', 'the admin password', '203.0.113.7')).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(await service.claims('embedded|1')).toBeNull();
  }, 240_000);

  it('throttles an account after its failures (even with the right password), and an address across accounts', async () => {
    const { service } = setup({ perAccount: 3, perAddress: 5, windowSeconds: 60 });
    await service.setPasswordAsOperator('admin@club.example', 'the admin password');
    for (let i = 0; i < 3; i++)
      expect(await service.signIn('admin@club.example', `wrong ${i}`, '203.0.113.7')).toEqual({
        ok: false,
        reason: 'invalid',
      });
    expect(await service.signIn('admin@club.example', 'the admin password', '198.51.100.1')).toEqual({
      ok: false,
      reason: 'throttled',
    });
    for (let i = 0; i < 2; i++) await service.signIn(`other${i}@club.example`, 'wrong', '203.0.113.7');
    expect(await service.signIn('fresh@club.example', 'whatever', '203.0.113.7')).toEqual({
      ok: false,
      reason: 'throttled',
    });
  }, 240_000);

  it("keeps the member's own browser signing in while others' failures lock the account, and locks a browser by its own", async () => {
    const { service } = setup({ perAccount: 3, perAddress: 10, windowSeconds: 60 });
    await service.setPasswordAsOperator('admin@club.example', 'the admin password');
    const first = await service.signIn('admin@club.example', 'the admin password', '203.0.113.7');
    if (!first.ok) throw new Error('the first sign-in failed');
    // Someone else sends wrong passwords for the account until it is refused to every browser without a token.
    for (let i = 0; i < 3; i++) await service.signIn('admin@club.example', `a guess ${i}`, '198.51.100.9');
    const refused = { ok: false, reason: 'throttled' };
    expect(await service.signIn('admin@club.example', 'the admin password', '198.51.100.9')).toEqual(refused);
    expect(await service.signIn('admin@club.example', 'the admin password', '203.0.113.7')).toEqual(refused);
    // A token of another account, an altered one or garbage is no token: refused with the rest.
    const other = await service.signIn('Admin@Club.example ', 'the admin password', '203.0.113.7', 'x.y');
    expect(other).toEqual(refused);
    const altered = `${first.devices.startsWith('A') ? 'B' : 'A'}${first.devices.slice(1)}`;
    expect(await service.signIn('admin@club.example', 'the admin password', '203.0.113.7', altered)).toEqual(refused);
    // The browser that signed in before (its token) still signs in, and gets a new token.
    const again = await service.signIn(' Admin@club.example', 'the admin password', '203.0.113.7', first.devices);
    expect(again).toMatchObject({ ok: true, subject: 'embedded|1' });
    if (!again.ok) return;
    expect(again.devices).not.toBe(first.devices);
    // That browser's own wrong passwords lock that browser only: its limit is the account's.
    for (let i = 0; i < 3; i++)
      expect(await service.signIn('admin@club.example', `typo ${i}`, '203.0.113.7', again.devices)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    expect(await service.signIn('admin@club.example', 'the admin password', '203.0.113.7', again.devices)).toEqual(
      refused,
    );
    expect(
      await service.signIn('admin@club.example', 'the admin password', '203.0.113.7', first.devices),
    ).toMatchObject({ ok: true });
  }, 240_000);

  it('lets the browser that set a password through a link sign in while others lock the account', async () => {
    const { service } = setup({ perAccount: 3, perAddress: 10, windowSeconds: 60 });
    const { token } = await service.issueSetPasswordToken('member@club.example');
    for (let i = 0; i < 3; i++) await service.signIn('member@club.example', `a guess ${i}`, '198.51.100.9');
    // The member's browser kept another account's token; it keeps it beside the new one.
    const other = await service.setPasswordAsOperator('other@club.example', 'the other password');
    const before = await service.signIn('other@club.example', 'the other password', '203.0.113.7');
    if (!before.ok || other !== undefined) throw new Error('the other account did not sign in');
    const { devices } = await service.setPassword(token, 'a long enough password', before.devices);
    expect(devices.split('~')).toHaveLength(2);
    expect(await service.signIn('member@club.example', 'a long enough password', '198.51.100.9')).toEqual({
      ok: false,
      reason: 'throttled',
    });
    for (const email of ['member@club.example', 'other@club.example'])
      expect(
        await service.signIn(
          email,
          email.startsWith('member') ? 'a long enough password' : 'the other password',
          '203.0.113.7',
          devices,
        ),
      ).toMatchObject({ ok: true });
  }, 240_000);

  it('checks no more passwords than the limit when many tries arrive at once', async () => {
    const { service } = setup({ perAccount: 3, perAddress: 10, windowSeconds: 60 });
    await service.setPasswordAsOperator('admin@club.example', 'the admin password');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => service.signIn('admin@club.example', `wrong ${i}`, '203.0.113.7')),
    );
    expect(outcomes.filter((o) => !o.ok && o.reason === 'invalid')).toHaveLength(3);
    expect(outcomes.filter((o) => !o.ok && o.reason === 'throttled')).toHaveLength(5);
  }, 240_000);

  it('links to the account of the platform subject when the account has signed in elsewhere before', async () => {
    const { service, accounts } = setup();
    accounts.add({ email: 'linked@club.example', subject: 'idp|42' });
    await service.setPasswordAsOperator('linked@club.example', 'the linked password');
    expect(await service.signIn('linked@club.example', 'the linked password', '203.0.113.7')).toMatchObject({
      ok: true,
      subject: 'idp|42',
    });
    expect((await service.claims('idp|42'))?.email).toBe('linked@club.example');
    expect(await service.claims('embedded|1')).toBeNull();
  });
});
