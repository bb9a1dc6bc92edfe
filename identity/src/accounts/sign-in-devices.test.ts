import { SignInDevices } from './sign-in-devices';

describe('SignInDevices', () => {
  const devices = new SignInDevices('the identity cookie secret');
  const PASSWORD = 'scrypt$32768$8$3$salt$hash';

  it("names a browser for the account and password it signed in with, for no other account, password or provider's secret", () => {
    const list = devices.remember(undefined, 'member@club.example', PASSWORD);
    expect(list).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect(devices.deviceOf(list, 'member@club.example', PASSWORD)).toBe(list.split('.')[0]);
    expect(devices.remember(undefined, 'member@club.example', PASSWORD)).not.toBe(list);
    expect(devices.deviceOf(list, 'admin@club.example', PASSWORD)).toBeNull();
    expect(devices.deviceOf(list, 'member@club.example', 'scrypt$32768$8$3$another$hash')).toBeNull();
    expect(new SignInDevices('another secret').deviceOf(list, 'member@club.example', PASSWORD)).toBeNull();
  });

  it('keeps one token per account, the latest first, for the last five accounts', () => {
    let list = devices.remember(undefined, 'a@club.example', PASSWORD);
    const first = devices.deviceOf(list, 'a@club.example', PASSWORD);
    list = devices.remember(list, 'b@club.example', PASSWORD);
    expect(devices.deviceOf(list, 'a@club.example', PASSWORD)).toBe(first);
    list = devices.remember(list, 'a@club.example', PASSWORD);
    expect(list.split('~')).toHaveLength(2);
    expect(devices.deviceOf(list, 'a@club.example', PASSWORD)).not.toBe(first);
    for (const name of ['c', 'd', 'e', 'f']) list = devices.remember(list, `${name}@club.example`, PASSWORD);
    expect(list.split('~')).toHaveLength(5);
    expect(devices.deviceOf(list, 'b@club.example', PASSWORD)).toBeNull();
    expect(devices.deviceOf(list, 'a@club.example', PASSWORD)).not.toBeNull();
  });

  it('finds its token behind others a browser sends (a cookie of the name set by another host), up to sixteen', () => {
    const own = devices.remember(undefined, 'g@club.example', PASSWORD);
    const junk = (n: number) =>
      Array.from({ length: n }, () => devices.remember(undefined, 'x@club.example', PASSWORD));
    expect(devices.deviceOf([...junk(15), own].join('~'), 'g@club.example', PASSWORD)).not.toBeNull();
    expect(devices.deviceOf([...junk(16), own].join('~'), 'g@club.example', PASSWORD)).toBeNull();
    // Malformed entries are not tokens and take no place.
    expect(devices.deviceOf(['', 'x.y', ...junk(15), own].join('~'), 'g@club.example', PASSWORD)).not.toBeNull();
  });

  it('refuses an altered, truncated or malformed token', () => {
    const token = devices.remember(undefined, 'member@club.example', PASSWORD);
    const [id, mac] = token.split('.');
    const flipped = (s: string) => `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    for (const bad of [`${flipped(id)}.${mac}`, `${id}.${flipped(mac)}`, `${id}.${mac.slice(0, -1)}`, id, '', 'a.b'])
      expect(devices.deviceOf(bad, 'member@club.example', PASSWORD)).toBeNull();
    expect(devices.deviceOf(undefined, 'member@club.example', PASSWORD)).toBeNull();
  });
});
