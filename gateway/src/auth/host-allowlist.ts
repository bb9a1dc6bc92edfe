import { isIP } from 'node:net';

/**
 * Where a call comes from, as the host allowlist sees it:
 * - `originHost`: the hostname of the `Origin` header, or else of the `Referer` header
 *   (browsers send these; they name the site that made the call, and any other client can forge them);
 * - `clientIp`: the caller's address: the socket's, or the one X-Forwarded-For names when every hop
 *   after it is a trusted proxy (TRUST_PROXY).
 */
export interface CallerHost {
  originHost: string | null;
  clientIp: string | null;
}

export function hostFromUrlHeader(value: string | undefined | null): string | null {
  if (!value) return null;
  try {
    const host = new URL(value).hostname.toLowerCase();
    return host.replace(/^\[|\]$/g, '') || null;
  } catch {
    return null;
  }
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

function hostMatches(entry: string, host: string): boolean {
  if (entry.startsWith('*.')) {
    const suffix = entry.slice(1); // ".example.org"
    return host.endsWith(suffix) && host.length > suffix.length;
  }
  return entry === host;
}

/**
 * The allowlist rule. An empty list allows every caller. Otherwise a call is allowed when
 * - its client address equals an IP entry (the address of the connection, through trusted proxies), or
 * - the hostname of its Origin (else Referer) matches a hostname or `*.domain` entry.
 * An IP literal in Origin/Referer matches nothing: those headers are the client's to write, so an
 * IP entry is never satisfied by them. Hostname entries therefore guard browser use only.
 */
export function isHostAllowed(allowedHosts: readonly string[], caller: CallerHost): boolean {
  if (allowedHosts.length === 0) return true;
  const entries = allowedHosts.map((e) => e.trim().toLowerCase()).filter(Boolean);
  const ip = normaliseIp(caller.clientIp);
  if (ip && entries.some((e) => isIP(e) !== 0 && normaliseIp(e) === ip)) return true;
  const host = caller.originHost?.toLowerCase() ?? null;
  if (!host || isIP(host) !== 0) return false;
  return entries.some((e) => isIP(e) === 0 && hostMatches(e, host));
}
