/**
 * The Redis counter of an address's failed authentications in the current fixed window: the gateway's throttle
 * counts there, and the REST adapter reads it before answering a visitor from a grant given to another address.
 */
export function failedAuthWindow(
  address: string | null | undefined,
  windowSeconds: number,
  now = Date.now(),
): { key: string; retryAfterSeconds: number } {
  const index = Math.floor(now / 1000 / windowSeconds);
  return {
    key: `authfail:${address ?? 'unknown'}:${index}`,
    retryAfterSeconds: Math.max(1, Math.ceil((index + 1) * windowSeconds - now / 1000)),
  };
}
