import { startRedisConnection } from '@em/core/testing';
import { MemorySignInCounters, RedisSignInCounters, SignInCounters, SignInThrottle } from './sign-in-throttle';

const LIMITS = { perAccount: 3, perAddress: 5, windowSeconds: 60 };
/** A window's start on the counters' clock (windows are whole multiples of windowSeconds). */
const WINDOW_START = 1_800_000_000_000;

describe.each<[string, () => Promise<{ counters: (now: () => number) => SignInCounters; stop: () => void }>]>([
  ['in memory', async () => ({ counters: (now) => new MemorySignInCounters(now), stop: () => undefined })],
  [
    'in Redis',
    async () => {
      const { redis, stop } = await startRedisConnection();
      return { counters: (now) => new RedisSignInCounters(redis, now), stop };
    },
  ],
])('the sign-in throttle, counters %s', (_name, open) => {
  let opened: Awaited<ReturnType<typeof open>>;
  let now = WINDOW_START;
  let run = 0;
  let counters: SignInCounters;
  beforeAll(async () => {
    opened = await open();
    counters = opened.counters(() => now);
  });
  afterAll(() => opened.stop());
  beforeEach(() => (run += 1));
  const throttle = () => new SignInThrottle(counters, LIMITS);
  const email = () => `runner${run}@club.example`;
  const address = () => `203.0.113.${run}`;

  it('lets no more tries than the limit check a password, also when they all arrive at once', async () => {
    now = WINDOW_START + 5_000;
    const attempts = await Promise.all(Array.from({ length: 12 }, () => throttle().attempt(email(), address())));
    expect(attempts.filter(Boolean)).toHaveLength(LIMITS.perAccount);
  });

  it('lets no window of its length hold more failures than the limit, also across the end of a window', async () => {
    const fail = async () => Boolean(await throttle().attempt(email(), address()));
    now = WINDOW_START + 1_000;
    expect(await fail()).toBe(true);
    now = WINDOW_START + 59_000;
    expect([await fail(), await fail()]).toEqual([true, true]);
    expect(await fail()).toBe(false);
    // Two seconds later, in the next window: the three failures of the last seconds still count.
    now = WINDOW_START + 61_000;
    expect(await fail()).toBe(false);
    // Once the first window stops counting, the account may try again.
    now = WINDOW_START + 120_500;
    expect(await fail()).toBe(true);
  });

  it("counts an IPv6 address's tries against its /64, so a caller cannot step through its own network", async () => {
    now = WINDOW_START + 20_000;
    const t = throttle();
    for (let i = 1; i <= LIMITS.perAddress; i++)
      expect(await t.attempt(`spray${i}-${email()}`, `2001:db8:${run}:1::${i}`)).not.toBeNull();
    expect(await t.attempt(`spray-last-${email()}`, `2001:db8:${run}:1:ffff::1`)).toBeNull();
    expect(await t.attempt(`spray-last-${email()}`, `2001:db8:${run}:2::1`)).not.toBeNull();
  });

  it('a success takes its try back from the address and clears the account', async () => {
    now = WINDOW_START + 10_000;
    const t = throttle();
    for (let i = 0; i < 2; i++) expect(await t.attempt(email(), address())).not.toBeNull();
    const good = await t.attempt(email(), address());
    await t.succeeded(good!);
    // The account starts again from nothing; the address holds its two failures, not the success.
    for (let i = 0; i < 3; i++) expect(await t.attempt(`other${i}-${email()}`, address())).not.toBeNull();
    expect(await t.attempt(`more-${email()}`, address())).toBeNull();
    for (let i = 0; i < 3; i++) expect(await t.attempt(email(), `198.51.100.${run}${i}`)).not.toBeNull();
  });

  it("counts a known browser's tries against that browser alone, with the account's limit", async () => {
    now = WINDOW_START + 30_000;
    const t = throttle();
    for (let i = 0; i < LIMITS.perAccount; i++) expect(await t.attempt(email(), address())).not.toBeNull();
    expect(await t.attempt(email(), `198.51.100.${run}`)).toBeNull();
    // The account is refused to everyone else; its member's browser still tries, up to its own limit.
    const device = `device-${run}`;
    for (let i = 0; i < LIMITS.perAccount; i++) expect(await t.attempt(email(), address(), device)).not.toBeNull();
    expect(await t.attempt(email(), address(), device)).toBeNull();
    expect(await t.attempt(email(), address(), `another-${device}`)).not.toBeNull();
    // A success there clears that browser's count only: the account stays refused elsewhere.
    await t.succeeded((await t.attempt(email(), address(), `third-${device}`))!);
    expect(await t.attempt(email(), `198.51.100.${run}`)).toBeNull();
  });
});

describe('the sign-in counters in memory', () => {
  it('forget the tries of windows that no longer count, so a long-running process does not grow without end', async () => {
    let now = WINDOW_START + 1_000;
    const counters = new MemorySignInCounters(() => now);
    const throttle = new SignInThrottle(counters, LIMITS);
    for (let i = 0; i < 50; i++) await throttle.attempt(`runner${i}@club.example`, `203.0.113.${i}`);
    expect(counters.size).toBe(100);
    // Once Redis would have expired them, they are gone: only the new try's counters are held.
    now = WINDOW_START + 3 * LIMITS.windowSeconds * 1000;
    expect(await throttle.attempt('late@club.example', '198.51.100.1')).not.toBeNull();
    expect(counters.size).toBe(2);
  });
});
