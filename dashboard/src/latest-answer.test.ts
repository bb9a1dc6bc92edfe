import { latestAnswer } from './latest-answer';

describe('latestAnswer', () => {
  it('keeps the latest read when an older one answers after it', async () => {
    const shown: number[] = [];
    const show = latestAnswer<number>((n) => shown.push(n));
    let answerOld!: (n: number) => void;
    const older = show(new Promise<number>((resolve) => (answerOld = resolve)));
    await show(Promise.resolve(20));
    answerOld(19);
    await older;
    expect(shown).toEqual([20]);
  });

  it('shows every answer of reads that do not overlap', async () => {
    const shown: number[] = [];
    const show = latestAnswer<number>((n) => shown.push(n));
    await show(Promise.resolve(1));
    await show(Promise.resolve(2));
    expect(shown).toEqual([1, 2]);
  });
});
