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

  it('judges a call without Origin/Referer by its client IP', () => {
    expect(isHostAllowed(['203.0.113.9'], { originHost: null, clientIp: '::ffff:203.0.113.9' })).toBe(true);
    expect(isHostAllowed(['203.0.113.9'], { originHost: null, clientIp: '198.51.100.1' })).toBe(false);
    expect(isHostAllowed(['photos.example.org'], { originHost: null, clientIp: '127.0.0.1' })).toBe(false);
    expect(isHostAllowed(['203.0.113.9'], { originHost: null, clientIp: null })).toBe(false);
  });

  it('reads hostnames from Origin and Referer headers', () => {
    expect(hostFromUrlHeader('https://Photos.Example.org:8443')).toBe('photos.example.org');
    expect(hostFromUrlHeader('https://a.example/page?x=1')).toBe('a.example');
    expect(hostFromUrlHeader('null')).toBeNull();
    expect(hostFromUrlHeader(undefined)).toBeNull();
  });
});
