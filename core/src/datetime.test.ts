import { formatClockTime, formatDate, formatDateTime, toEpochSeconds } from './datetime';

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
