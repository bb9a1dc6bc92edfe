import type { IncomingMessage } from 'node:http';
import { clientAddress, clientNetwork, clientNetworkKey, compileTrustProxy } from './client-address';

const request = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  }) as unknown as IncomingMessage;

describe('client address through trusted proxies', () => {
  it('believes X-Forwarded-For only from a trusted proxy', () => {
    const loopback = compileTrustProxy('loopback');
    expect(clientAddress(request('127.0.0.1', '203.0.113.9'), loopback)).toBe('203.0.113.9');
    expect(clientAddress(request('198.51.100.1', '203.0.113.9'), loopback)).toBe('198.51.100.1');
  });

  it('stops at the first untrusted hop from the right (a forged left part is ignored)', () => {
    const proxies = compileTrustProxy('10.0.0.0/8, loopback');
    expect(clientAddress(request('10.0.0.2', '203.0.113.9, 198.51.100.7'), proxies)).toBe('198.51.100.7');
    expect(clientAddress(request('127.0.0.1', '203.0.113.9, 10.0.0.5'), proxies)).toBe('203.0.113.9');
  });

  it('reads true/false and hop counts', () => {
    expect(clientAddress(request('198.51.100.1', '203.0.113.9'), compileTrustProxy('false'))).toBe('198.51.100.1');
    expect(clientAddress(request('198.51.100.1', '203.0.113.9'), compileTrustProxy('true'))).toBe('203.0.113.9');
    expect(clientAddress(request('198.51.100.1', '192.0.2.1, 203.0.113.9'), compileTrustProxy('1'))).toBe(
      '203.0.113.9',
    );
  });
});

describe('clientNetwork', () => {
  it('is an IPv4 address itself and an IPv6 address its /64, however the address is written', () => {
    expect(clientNetwork('203.0.113.9')).toBe('203.0.113.9');
    expect(clientNetwork('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientNetwork('2001:DB8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('2001:db8::1:ffff:0:0:2')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
  });

  it('keys a caller without an address as one unknown client', () => {
    expect(clientNetwork(undefined)).toBeNull();
    expect(clientNetworkKey(undefined)).toBe('unknown');
    expect(clientNetworkKey('')).toBe('unknown');
    expect(clientNetworkKey('2001:db8:0:1::7')).toBe('2001:db8:0:1::/64');
  });
});
