import { dateArgument, formatClockTime, formatDate, formatDateTime, toEpochSeconds } from './datetime';

describe('datetime formats', () => {
  it('formats without zone suffix, in UTC', () => {
    const d = new Date('2026-05-17T09:05:03.900Z');
    expect(formatDateTime(d)).toBe('2026-05-17T09:05:03');
    expect(formatDateTime(null)).toBeNull();
    expect(formatDate(d)).toBe('2026-05-17');
    expect(toEpochSeconds(d)).toBe(1779008703);
  });

  it('formats positions inside a video as HH:MM:SS', () => {
    expect(formatClockTime(0)).toBe('00:00:00');
    expect(formatClockTime(3725.8)).toBe('01:02:05');
  });
});

describe('dateArgument', () => {
  it('passes real dates and absent ones', () => {
    expect(dateArgument('from', new Date('2026-11-27T00:00:00Z'))).toEqual(new Date('2026-11-27T00:00:00Z'));
    expect(dateArgument('from', null)).toBeNull();
    expect(dateArgument('from', undefined)).toBeNull();
  });

  it('refuses invalid dates and years outside 1..9999 with a 400', () => {
    for (const date of [
      new Date('0000-00-00'),
      new Date(NaN),
      new Date('+275760-09-13T00:00:00Z'),
      new Date('0000-01-01T00:00:00Z'),
    ]) {
      expect(() => dateArgument('from', date)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }));
    }
  });
});
