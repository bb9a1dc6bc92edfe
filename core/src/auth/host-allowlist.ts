import { isIP } from 'node:net';

/**
 * Where a call comes from, as the host allowlist sees it:
 * - `originHost`: the hostname of the `Origin` header, or else of the `Referer` header
 *   (browsers send these; they name the site that made the call);
 * - `clientIp`: the caller's address (the socket's, or X-Forwarded-For from a trusted proxy).
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

export function normaliseIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

function hostMatches(entry: string, host: string): boolean {
  if (entry.startsWith('*.')) {
    const suffix = entry.slice(1); // ".example.org"
    return host.endsWith(suffix) && host.length > suffix.length;
  }
  return entry === host;
}

/**
 * The allowlist rule: an empty list allows every host. Otherwise, a call that names its site
 * (Origin/Referer) is allowed when that hostname is on the list; a call that names none is allowed
 * when its client IP is on the list. Entries are hostnames, `*.domain` wildcards, or IP addresses.
 */
export function isHostAllowed(allowedHosts: readonly string[], caller: CallerHost): boolean {
  if (allowedHosts.length === 0) return true;
  const entries = allowedHosts.map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (caller.originHost) {
    const host = caller.originHost.toLowerCase();
    return entries.some((e) => hostMatches(e, host));
  }
  const ip = normaliseIp(caller.clientIp);
  if (!ip) return false;
  return entries.some((e) => isIP(e) !== 0 && normaliseIp(e) === ip);
}
