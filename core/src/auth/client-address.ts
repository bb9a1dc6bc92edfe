import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** Is the hop at `addr` (the i-th from the socket) a proxy whose X-Forwarded-For is believed? */
export type TrustProxy = (addr: string, i: number) => boolean;

/**
 * TRUST_PROXY in express's `trust proxy` syntax: "true"/"false", a hop count, or a list of
 * addresses, CIDRs and names ("loopback", "linklocal", "uniquelocal").
 */
export function compileTrustProxy(value: string): TrustProxy {
  const setting = value.trim();
  if (setting === 'true' || setting === 'false') return () => setting === 'true';
  if (/^\d+$/.test(setting)) {
    const hops = Number(setting);
    return (_addr, i) => i < hops;
  }
  return proxyaddr.compile(
    setting
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** What an unset TRUST_PROXY means: the public REST adapter trusts no proxy; the gateway its adapter on loopback. */
export const DEFAULT_TRUST_PROXY = { restAdapter: 'false', gateway: 'loopback' } as const;

/**
 * The caller's address: the socket's peer, or the address X-Forwarded-For names when every hop
 * after it is trusted. A client that is not a trusted proxy cannot name its own address.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  return proxyaddr(req, trust);
}

/** One spelling per address: IPv4-mapped IPv6 as IPv4, IPv6 compressed and lower case. */
export function normaliseIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const value = ip.trim().toLowerCase();
  if (value.startsWith('::ffff:') && isIP(value.slice(7)) === 4) return value.slice(7);
  return isIP(value) === 6 ? new URL(`http://[${value}]/`).hostname.slice(1, -1) : value;
}

/**
 * Who a client is for a shared budget: its IPv4 address, or its IPv6 /64 (one subscriber's
 * network holds a whole /64, so its addresses are not different callers).
 */
export function clientNetwork(ip: string | null | undefined): string | null {
  const address = normaliseIp(ip);
  if (!address || isIP(address) !== 6) return address;
  const [head, tail = ''] = address.split('::');
  const groups = [...head.split(':').filter(Boolean)];
  const tailGroups = tail.split(':').filter(Boolean);
  const full = [...groups, ...Array<string>(8 - groups.length - tailGroups.length).fill('0'), ...tailGroups];
  return normaliseIp(`${full.slice(0, 4).join(':')}::`) + '/64';
}

/**
 * `clientNetwork` as the key a per-client limit counts under (failed authentications, sign-in tries, connections):
 * a caller without a known address counts as one `unknown` client.
 */
export function clientNetworkKey(ip: string | null | undefined): string {
  return clientNetwork(ip) ?? 'unknown';
}
