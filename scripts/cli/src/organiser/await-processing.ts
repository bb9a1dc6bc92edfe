/** Where the event's photos stand: all of them, those still waiting or in the worker, those failed. */
export interface ProcessingTally {
  total: number;
  open: number;
  failed: number;
}

/** A feed of the event's photo transitions: calls `onTransition` for each, until the returned stop is called. */
export type TransitionFeed = (onTransition: () => void) => Promise<() => Promise<void>>;

export interface AwaitProcessingOptions {
  /** Transitions within this time are counted once. */
  batchMs?: number;
  /** A count even without a transition heard (one missed on the feed, or no feed). */
  fallbackMs?: number;
}

/**
 * Waits until no photo of the event is waiting or processing, reporting each tally. It counts again
 * when the worker announces a transition rather than on a clock, so its cost (a query in Postgres)
 * follows the photos, not the hours a large import runs.
 */
export async function awaitProcessing(
  tally: () => Promise<ProcessingTally>,
  feed: TransitionFeed,
  onTally: (t: ProcessingTally) => void,
  { batchMs = 500, fallbackMs = 10_000 }: AwaitProcessingOptions = {},
): Promise<ProcessingTally> {
  let heard: boolean;
  let wake: (() => void) | null = null;
  // Subscribed before the first count: a transition between the two is not lost.
  const stop = await feed(() => {
    heard = true;
    wake?.();
  });
  try {
    for (;;) {
      heard = false;
      const current = await tally();
      onTally(current);
      if (current.open === 0) return current;
      if (!heard)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, fallbackMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      wake = null;
      await new Promise((resolve) => setTimeout(resolve, batchMs));
    }
  } finally {
    await stop();
  }
}
