import { percentile, stageTable } from './selfie-stages';

describe('stageTable', () => {
  it("splits each search into the stack (client minus subgraph) and the subgraph's stages, and lists the slowest", () => {
    const searches = [
      { ms: 100, server: { totalMs: 80, stages: { guard: 10, embed: 70 } } },
      { ms: 900, server: { totalMs: 850, stages: { guard: 10, embed: 840 } } },
      { ms: 120 },
    ];
    const [median, , slowest] = stageTable(searches);
    expect(median.value).toBe('stack 50, guard 10, embed 70');
    expect(slowest.value.startsWith('900 ms: stack 50, guard 10, embed 840; 120 ms: stack 120')).toBe(true);
    expect(median.how).toContain('1 searches without a timing line');
  });

  it('takes the percentile as the value at that rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(percentile([1, 2, 3], 0.99)).toBe(3);
  });
});
