import { hostFromUrlHeader, isHostAllowed } from './host-allowlist';

describe('host allowlist', () => {
  it('allows every host when the list is empty', () => {
    expect(isHostAllowed([], { originHost: 'evil.example', clientIp: '10.0.0.1' })).toBe(true);
  });

  it('matches the Origin/Referer hostname, with *.domain wildcards', () => {
    const list = ['photos.example.org', '*.club.example'];
    expect(isHostAllowed(list, { originHost: 'photos.example.org', clientIp: null })).toBe(true);
    expect(isHostAllowed(list, { originHost: 'www.club.example', clientIp: null })).toBe(true);
    expect(isHostAllowed(list, { originHost: 'club.example', clientIp: null })).toBe(false);
    expect(isHostAllowed(list, { originHost: 'evilclub.example', clientIp: null })).toBe(false);
    expect(isHostAllowed(list, { originHost: 'other.example', clientIp: '127.0.0.1' })).toBe(false);
  });

  it('matches IP entries on the client address only', () => {
    expect(isHostAllowed(['203.0.113.9'], { originHost: null, clientIp: '::ffff:203.0.113.9' })).toBe(true);
    expect(isHostAllowed(['203.0.113.9'], { originHost: null, clientIp: '198.51.100.1' })).toBe(false);
    expect(isHostAllowed(['photos.example.org'], { originHost: null, clientIp: '127.0.0.1' })).toBe(false);
    expect(isHostAllowed(['203.0.113.9'], { originHost: null, clientIp: null })).toBe(false);
    expect(isHostAllowed(['2001:db8::1'], { originHost: null, clientIp: '2001:DB8::1' })).toBe(true);
    expect(isHostAllowed(['2001:db8:0:0::1'], { originHost: null, clientIp: '2001:db8::1' })).toBe(true);
  });

  it('never lets an IP literal in Origin/Referer satisfy an entry (#5: forged Origin)', () => {
    expect(isHostAllowed(['203.0.113.9'], { originHost: '203.0.113.9', clientIp: '198.51.100.1' })).toBe(false);
    expect(isHostAllowed(['203.0.113.9'], { originHost: '203.0.113.9', clientIp: null })).toBe(false);
    expect(isHostAllowed(['2001:db8::1'], { originHost: '2001:db8::1', clientIp: '198.51.100.1' })).toBe(false);
    expect(
      isHostAllowed(['203.0.113.9', 'photos.example.org'], { originHost: '203.0.113.9', clientIp: '198.51.100.1' }),
    ).toBe(false);
  });

  it('a list with both kinds: the client IP matches an IP entry, or the site matches a hostname entry', () => {
    const list = ['203.0.113.9', 'photos.example.org'];
    expect(isHostAllowed(list, { originHost: 'evil.example', clientIp: '203.0.113.9' })).toBe(true);
    expect(isHostAllowed(list, { originHost: 'photos.example.org', clientIp: '198.51.100.1' })).toBe(true);
    expect(isHostAllowed(list, { originHost: 'evil.example', clientIp: '198.51.100.1' })).toBe(false);
    expect(isHostAllowed(list, { originHost: null, clientIp: '198.51.100.1' })).toBe(false);
  });

  it('reads hostnames from Origin and Referer headers', () => {
    expect(hostFromUrlHeader('https://Photos.Example.org:8443')).toBe('photos.example.org');
    expect(hostFromUrlHeader('https://a.example/page?x=1')).toBe('a.example');
    expect(hostFromUrlHeader('http://[2001:db8::1]:80/')).toBe('2001:db8::1');
    expect(hostFromUrlHeader('null')).toBeNull();
    expect(hostFromUrlHeader(undefined)).toBeNull();
  });
});
