/**
 * The Redis counters of an address's failed authentications: failures are added to the current fixed window's
 * counter, and a check counts the previous window's too, so no `windowSeconds` ever holds more than the limit
 * (a fixed window alone lets twice the limit through in the seconds around its end). The gateway's throttle counts
 * there; the REST adapter reads the same counters before answering a visitor from a grant given to another address.
 */
export interface FailedAuthCounters {
  current: string;
  previous: string;
  /** Seconds until the current window ends (at least 1). */
  endsInSeconds: number;
  /** How long a counter must live: it is still counted through the next window. */
  ttlSeconds: number;
}

export function failedAuthCounters(
  address: string | null | undefined,
  windowSeconds: number,
  now = Date.now(),
): FailedAuthCounters {
  const index = Math.floor(now / 1000 / windowSeconds);
  const key = (i: number) => `authfail:${address ?? 'unknown'}:${i}`;
  return {
    current: key(index),
    previous: key(index - 1),
    endsInSeconds: Math.max(1, Math.ceil((index + 1) * windowSeconds - now / 1000)),
    ttlSeconds: 2 * windowSeconds + 1,
  };
}

/**
 * When a refused address may be let in again: at the end of this window, when the previous window's failures stop
 * counting, unless this window reached the limit alone (then at the end of the next).
 */
export function failedAuthRetryAfter(
  counters: FailedAuthCounters,
  currentFailures: number,
  limit: number,
  windowSeconds: number,
): number {
  return currentFailures >= limit ? counters.endsInSeconds + windowSeconds : counters.endsInSeconds;
}
