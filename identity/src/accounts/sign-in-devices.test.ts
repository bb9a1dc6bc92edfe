import { SignInDevices } from './sign-in-devices';

describe('SignInDevices', () => {
  const devices = new SignInDevices('the identity cookie secret');

  it("names a browser for the account it signed in to, and for no other account or provider's secret", () => {
    const token = devices.issue('member@club.example');
    expect(token).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    const id = devices.deviceOf(token, 'member@club.example');
    expect(id).toBe(token.split('.')[0]);
    expect(devices.issue('member@club.example')).not.toBe(token);
    expect(devices.deviceOf(token, 'admin@club.example')).toBeNull();
    expect(new SignInDevices('another secret').deviceOf(token, 'member@club.example')).toBeNull();
  });

  it('refuses an altered, truncated or malformed token', () => {
    const token = devices.issue('member@club.example');
    const [id, mac] = token.split('.');
    const flipped = (s: string) => `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    for (const bad of [`${flipped(id)}.${mac}`, `${id}.${flipped(mac)}`, `${id}.${mac.slice(0, -1)}`, id, '', 'a.b'])
      expect(devices.deviceOf(bad, 'member@club.example')).toBeNull();
    expect(devices.deviceOf(undefined, 'member@club.example')).toBeNull();
  });
});
