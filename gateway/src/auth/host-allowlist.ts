import { normaliseIp } from '@em/core';
import { isIP } from 'node:net';

export { clientNetwork, normaliseIp } from '@em/core';

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
  return originAllowed(entries, caller);
}

/**
 * Whether the allowlist lets the call through whatever its client address: the list is empty or the call's
 * Origin (else Referer) matches a hostname entry. Then every caller with the same headers is allowed alike.
 */
export function isHostAllowedForAnyAddress(allowedHosts: readonly string[], caller: CallerHost): boolean {
  if (allowedHosts.length === 0) return true;
  return originAllowed(allowedHosts.map((e) => e.trim().toLowerCase()).filter(Boolean), caller);
}

function originAllowed(entries: string[], caller: CallerHost): boolean {
  const host = caller.originHost?.toLowerCase() ?? null;
  if (!host || isIP(host) !== 0) return false;
  return entries.some((e) => isIP(e) === 0 && hostMatches(e, host));
}
