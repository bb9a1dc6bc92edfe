import { SignInDevices } from './sign-in-devices';

describe('SignInDevices', () => {
  const devices = new SignInDevices('the identity cookie secret');

  it("names a browser for the account it signed in to, and for no other account or provider's secret", () => {
    const list = devices.remember(undefined, 'member@club.example');
    expect(list).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect(devices.deviceOf(list, 'member@club.example')).toBe(list.split('.')[0]);
    expect(devices.remember(undefined, 'member@club.example')).not.toBe(list);
    expect(devices.deviceOf(list, 'admin@club.example')).toBeNull();
    expect(new SignInDevices('another secret').deviceOf(list, 'member@club.example')).toBeNull();
  });

  it('keeps one token per account, the latest first, for the last five accounts', () => {
    let list = devices.remember(undefined, 'a@club.example');
    const first = devices.deviceOf(list, 'a@club.example');
    list = devices.remember(list, 'b@club.example');
    expect(devices.deviceOf(list, 'a@club.example')).toBe(first);
    list = devices.remember(list, 'a@club.example');
    expect(list.split('~')).toHaveLength(2);
    expect(devices.deviceOf(list, 'a@club.example')).not.toBe(first);
    for (const name of ['c', 'd', 'e', 'f']) list = devices.remember(list, `${name}@club.example`);
    expect(list.split('~')).toHaveLength(5);
    expect(devices.deviceOf(list, 'b@club.example')).toBeNull();
    expect(devices.deviceOf(list, 'a@club.example')).not.toBeNull();
    // A list padded with more tokens is read no further than five.
    const padded = [...Array(5).fill('x.y'), devices.remember(undefined, 'g@club.example')].join('~');
    expect(devices.deviceOf(padded, 'g@club.example')).toBeNull();
  });

  it('refuses an altered, truncated or malformed token', () => {
    const token = devices.remember(undefined, 'member@club.example');
    const [id, mac] = token.split('.');
    const flipped = (s: string) => `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    for (const bad of [`${flipped(id)}.${mac}`, `${id}.${flipped(mac)}`, `${id}.${mac.slice(0, -1)}`, id, '', 'a.b'])
      expect(devices.deviceOf(bad, 'member@club.example')).toBeNull();
    expect(devices.deviceOf(undefined, 'member@club.example')).toBeNull();
  });
});
