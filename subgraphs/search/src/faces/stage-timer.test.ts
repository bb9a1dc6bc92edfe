import { StageTimer } from './stage-timer';

describe('StageTimer', () => {
  it('records each lap as the time since the previous one, and sums a stage met twice', async () => {
    const timer = new StageTimer();
    await new Promise((r) => setTimeout(r, 20));
    timer.lap('first');
    timer.lap('second');
    timer.add('second', 5);
    timer.add('elsewhere', -3);
    expect(timer.stages.first).toBeGreaterThanOrEqual(15);
    expect(timer.stages.second).toBeGreaterThanOrEqual(5);
    expect(timer.stages.second).toBeLessThan(15);
    expect(timer.stages.elsewhere).toBe(0);
    expect(Object.keys(timer.stages)).toEqual(['first', 'second', 'elsewhere']);
    expect(timer.totalMs).toBeGreaterThanOrEqual(timer.stages.first);
  });
});
