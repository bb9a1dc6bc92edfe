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
