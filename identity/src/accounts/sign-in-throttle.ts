import type { Redis } from 'ioredis';

export interface ThrottleLimits {
  /** Failed sign-ins of one account (e-mail) in a window before further tries are refused. */
  perAccount: number;
  /** Failed sign-ins from one client address in a window (many accounts tried from one place). */
  perAddress: number;
  windowSeconds: number;
}

/** Counts of failures per key with their window; Redis in the service, a Map in unit tests. */
export interface FailureCounter {
  count(key: string): Promise<number>;
  add(key: string, windowSeconds: number): Promise<void>;
  clear(key: string): Promise<void>;
}

export class RedisFailureCounter implements FailureCounter {
  constructor(private readonly redis: Redis) {}

  async count(key: string) {
    return Number((await this.redis.get(key)) ?? 0);
  }

  async add(key: string, windowSeconds: number) {
    // The window starts at the first failure; later ones do not extend it.
    await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec();
  }

  async clear(key: string) {
    await this.redis.del(key);
  }
}

/** Counts in this process: for the CLI and the demo seed (they never sign in) and unit tests. */
export class MemoryFailureCounter implements FailureCounter {
  private readonly counts = new Map<string, { count: number; until: number }>();

  async count(key: string) {
    const entry = this.counts.get(key);
    return entry && entry.until > Date.now() ? entry.count : 0;
  }

  async add(key: string, windowSeconds: number) {
    const entry = this.counts.get(key);
    if (entry && entry.until > Date.now()) entry.count += 1;
    else this.counts.set(key, { count: 1, until: Date.now() + windowSeconds * 1000 });
  }

  async clear(key: string) {
    this.counts.delete(key);
  }
}

/**
 * Sign-in attempts throttled per account and per client address: past the limit, tries are refused
 * before the password is checked, until the window of the first failure ends. A success clears the
 * account's count (not the address's: one good password must not reset a spray from that address).
 */
export class SignInThrottle {
  constructor(
    private readonly counter: FailureCounter,
    private readonly limits: ThrottleLimits,
  ) {}

  private keys(email: string, address: string) {
    return { account: `signin:fail:account:${email}`, address: `signin:fail:address:${address}` };
  }

  async isBlocked(email: string, address: string): Promise<boolean> {
    const keys = this.keys(email, address);
    const [account, fromAddress] = await Promise.all([
      this.counter.count(keys.account),
      this.counter.count(keys.address),
    ]);
    return account >= this.limits.perAccount || fromAddress >= this.limits.perAddress;
  }

  async failed(email: string, address: string): Promise<void> {
    const keys = this.keys(email, address);
    await Promise.all([
      this.counter.add(keys.account, this.limits.windowSeconds),
      this.counter.add(keys.address, this.limits.windowSeconds),
    ]);
  }

  async succeeded(email: string): Promise<void> {
    await this.counter.clear(this.keys(email, '').account);
  }
}
