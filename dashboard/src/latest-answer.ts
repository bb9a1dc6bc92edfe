/**
 * Hands on only the answer of the latest of several reads of the same thing: reads started one after the other can
 * answer out of order, and an older answer arriving last would show counts that went back (and stayed so).
 */
export function latestAnswer<T>(apply: (value: T) => void): (read: Promise<T>) => Promise<void> {
  let asked = 0;
  return async (read) => {
    const mine = ++asked;
    const value = await read;
    if (mine === asked) apply(value);
  };
}
