import { awaitProcessing, ProcessingTally } from './await-processing';

/** A feed the test drives, as Redis pub/sub would: `announce` calls the listener while subscribed. */
function drivenFeed() {
  let listener: (() => void) | null = null;
  const feed = {
    stopped: false,
    announce: () => listener?.(),
    subscribe: async (onTransition: () => void) => {
      listener = onTransition;
      return async () => {
        listener = null;
        feed.stopped = true;
      };
    },
  };
  return feed;
}

const tallies = (open: number[]) => {
  const counted: number[] = [];
  const tally = async (): Promise<ProcessingTally> => {
    const left = open[Math.min(counted.length, open.length - 1)];
    counted.push(Date.now());
    return { total: 10, open: left, failed: 0 };
  };
  return { tally, counted };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('awaitProcessing', () => {
  it('counts again soon after an announced transition, not only on the fallback clock', async () => {
    const feed = drivenFeed();
    const { tally, counted } = tallies([3, 1, 0]);
    const seen: number[] = [];
    const started = Date.now();
    const done = awaitProcessing(tally, feed.subscribe, (t) => seen.push(t.open), { batchMs: 20, fallbackMs: 60_000 });
    await sleep(50);
    feed.announce();
    await sleep(80);
    feed.announce();
    feed.announce();
    expect(await done).toEqual({ total: 10, open: 0, failed: 0 });
    expect(seen).toEqual([3, 1, 0]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(counted).toHaveLength(3);
    expect(feed.stopped).toBe(true);
  });

  it('without any announcement counts on the fallback clock', async () => {
    const feed = drivenFeed();
    const { tally, counted } = tallies([2, 2, 0]);
    await awaitProcessing(tally, feed.subscribe, () => undefined, { batchMs: 10, fallbackMs: 150 });
    expect(counted).toHaveLength(3);
    expect(counted[2] - counted[0]).toBeGreaterThanOrEqual(2 * 150);
  });

  it('transitions arriving faster than the batch window are counted once per window', async () => {
    const feed = drivenFeed();
    const started = Date.now();
    let counts = 0;
    const tally = async (): Promise<ProcessingTally> => {
      counts++;
      return { total: 40, open: Date.now() - started < 400 ? 5 : 0, failed: 0 };
    };
    let announced = 0;
    const burst = setInterval(() => {
      announced++;
      feed.announce();
    }, 10);
    try {
      await awaitProcessing(tally, feed.subscribe, () => undefined, { batchMs: 100, fallbackMs: 60_000 });
    } finally {
      clearInterval(burst);
    }
    // A transition every 10 ms for 400 ms: a count per 100 ms window (and one to finish), not one per transition.
    expect(counts).toBeGreaterThanOrEqual(2);
    expect(counts).toBeLessThanOrEqual(Math.ceil(announced / 5) + 2);
  });

  it('a transition heard while counting is not lost: it counts again without waiting for the clock', async () => {
    const feed = drivenFeed();
    let calls = 0;
    const tally = async (): Promise<ProcessingTally> => {
      calls++;
      if (calls === 1) feed.announce();
      return { total: 1, open: calls === 1 ? 1 : 0, failed: 0 };
    };
    const started = Date.now();
    await awaitProcessing(tally, feed.subscribe, () => undefined, { batchMs: 10, fallbackMs: 60_000 });
    expect(calls).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops listening when the count fails', async () => {
    const feed = drivenFeed();
    const failing = async (): Promise<ProcessingTally> => {
      throw new Error('database gone');
    };
    await expect(awaitProcessing(failing, feed.subscribe, () => undefined)).rejects.toThrow('database gone');
    expect(feed.stopped).toBe(true);
  });
});
