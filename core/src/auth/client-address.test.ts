import type { IncomingMessage } from 'node:http';
import { clientAddress, compileTrustProxy } from './client-address';

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
