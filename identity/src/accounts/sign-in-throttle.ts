import { clientNetworkKey, countInWindowsIfUnder, uncountInWindow, windowCounters } from '@em/core';
import type { Redis } from 'ioredis';

export interface ThrottleLimits {
  /** Failed sign-ins of one account (e-mail) in a window before further tries are refused. */
  perAccount: number;
  /** Failed sign-ins from one client address in a window (many accounts tried from one place). */
  perAddress: number;
  windowSeconds: number;
  /**
   * Sign-ins started (the provider's authorization endpoint, which keeps an interaction for each) from one client
   * address in a window, failed or not: anyone may start one, and each is kept in Redis for its lifetime.
   */
  startsPerAddress?: number;
}

/** `SIGN_IN_STARTS_PER_ADDRESS`'s default, for the throttles the CLI, the seed and tests make. */
const STARTS_PER_ADDRESS = 120;

/** One try counted against its keys: each key's counter in the window it was counted in (to take it back). */
export interface CountedTry {
  keys: string[];
  counters: string[];
}

/**
 * The sign-in throttle's counters, kept as core's `windowCounters`: a key's count is its current window's and the
 * previous one's together, so no `windowSeconds` ever holds more than the limit.
 */
export interface SignInCounters {
  /**
   * Counts one try against every key unless one of them already holds its limit, at once (tries arriving together
   * cannot all pass the check before any is counted); null when refused.
   */
  countIfUnder(
    limits: ReadonlyArray<{ key: string; limit: number }>,
    windowSeconds: number,
  ): Promise<CountedTry | null>;
  /** Takes a counted try back from one of its keys. */
  uncount(counted: CountedTry, key: string): Promise<void>;
  /** Forgets every try of the key. */
  forget(key: string, windowSeconds: number): Promise<void>;
}

const counterOf = (counted: CountedTry, key: string) => counted.counters[counted.keys.indexOf(key)];

export class RedisSignInCounters implements SignInCounters {
  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  async countIfUnder(limits: ReadonlyArray<{ key: string; limit: number }>, windowSeconds: number) {
    const windows = limits.map(({ key }) => windowCounters(key, windowSeconds, this.now()));
    const count = await countInWindowsIfUnder(
      this.redis,
      windows.map((counters, i) => ({ counters, limit: limits[i].limit })),
    );
    return count.counted ? { keys: limits.map(({ key }) => key), counters: windows.map((w) => w.current) } : null;
  }

  async uncount(counted: CountedTry, key: string) {
    await uncountInWindow(this.redis, counterOf(counted, key));
  }

  async forget(key: string, windowSeconds: number) {
    const { current, previous } = windowCounters(key, windowSeconds, this.now());
    await this.redis.del(current, previous);
  }
}

/** Counts in this process: for the CLI and the demo seed (they never sign in) and unit tests. */
export class MemorySignInCounters implements SignInCounters {
  /** Each counter with the time it stops counting (as Redis expires it), swept at most once a window. */
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** How many counters are held (tests: a long-running process must not grow without end). */
  get size(): number {
    return this.counts.size;
  }

  async countIfUnder(limits: ReadonlyArray<{ key: string; limit: number }>, windowSeconds: number) {
    const now = this.now();
    this.sweep(now, windowSeconds);
    const windows = limits.map(({ key }) => windowCounters(key, windowSeconds, now));
    const held = (i: number) => this.countOf(windows[i].current) + this.countOf(windows[i].previous);
    // No await between the check and the count: tries of this process cannot interleave.
    if (limits.some(({ limit }, i) => held(i) >= limit)) return null;
    for (const { current, ttlSeconds } of windows)
      this.counts.set(current, { count: this.countOf(current) + 1, expiresAt: now + ttlSeconds * 1000 });
    return { keys: limits.map(({ key }) => key), counters: windows.map((w) => w.current) };
  }

  async uncount(counted: CountedTry, key: string) {
    const entry = this.counts.get(counterOf(counted, key));
    if (entry && entry.count > 0) entry.count -= 1;
  }

  async forget(key: string, windowSeconds: number) {
    const { current, previous } = windowCounters(key, windowSeconds, this.now());
    this.counts.delete(current);
    this.counts.delete(previous);
  }

  private countOf(counter: string): number {
    return this.counts.get(counter)?.count ?? 0;
  }

  private sweep(now: number, windowSeconds: number) {
    if (now < this.nextSweep) return;
    this.nextSweep = now + windowSeconds * 1000;
    for (const [counter, { expiresAt }] of this.counts) if (expiresAt <= now) this.counts.delete(counter);
  }
}

/**
 * Sign-in attempts throttled per account and per client address: a try is counted before its password is checked
 * (refused, unchecked, when the account or the address already holds its limit in the last window and the one
 * before), so tries sent together check no more passwords than the limit. A success takes its try back from the
 * address and clears the account's count (not the address's: one good password must not reset a spray from that
 * address). A try from a browser that signed in to the account before (`device`, a `SignInDevices` id) counts against
 * that browser alone, with the account's limit: the failures of others, which lock the account everywhere else, do
 * not lock its member out of their own browser, and that browser's own failures lock only it.
 */
export class SignInThrottle {
  constructor(
    private readonly counters: SignInCounters,
    private readonly limits: ThrottleLimits,
  ) {}

  private keys(email: string, address: string, device: string | null): string[] {
    if (device) return [`signin:fail:device:${device}`];
    // An IPv6 address counts as its /64: one subscriber holds the whole network and could otherwise step through it.
    return [`signin:fail:account:${email}`, `signin:fail:address:${clientNetworkKey(address)}`];
  }

  /** Counts a sign-in started from `address`; false: the address started too many in the window. */
  async startAllowed(address: string): Promise<boolean> {
    const key = `signin:start:address:${clientNetworkKey(address)}`;
    const limit = this.limits.startsPerAddress ?? STARTS_PER_ADDRESS;
    return (await this.counters.countIfUnder([{ key, limit }], this.limits.windowSeconds)) !== null;
  }

  /** Counts a try, before its password is checked; null: refused. */
  async attempt(email: string, address: string, device: string | null = null): Promise<CountedTry | null> {
    const [first, second] = this.keys(email, address, device);
    return this.counters.countIfUnder(
      [
        { key: first, limit: this.limits.perAccount },
        ...(second ? [{ key: second, limit: this.limits.perAddress }] : []),
      ],
      this.limits.windowSeconds,
    );
  }

  async succeeded(counted: CountedTry): Promise<void> {
    const [accountOrDevice, address] = counted.keys;
    await Promise.all([
      address ? this.counters.uncount(counted, address) : undefined,
      this.counters.forget(accountOrDevice, this.limits.windowSeconds),
    ]);
  }
}
