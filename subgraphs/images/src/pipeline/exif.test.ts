import sharp from 'sharp';
import { parseExifDateTime, parseExifOffset, readExif, wallClockToUtc } from './exif';

describe('EXIF capture time', () => {
  it('parses EXIF date-times and offsets', () => {
    expect(parseExifDateTime('2015:01:11 10:09:50')?.toISOString()).toBe('2015-01-11T10:09:50.000Z');
    expect(parseExifDateTime('0000:00:00 00:00:00')).toBeNull();
    expect(parseExifDateTime('garbage')).toBeNull();
    expect(parseExifOffset('+02:00')).toBe(120);
    expect(parseExifOffset('-0530')).toBe(-330);
    expect(parseExifOffset('Z')).toBeNull();
  });

  it("reads a camera's wall clock in the event's time zone, across DST", () => {
    const summer = parseExifDateTime('2026-07-01 10:00:00')!;
    expect(wallClockToUtc(summer, 'Europe/Paris').toISOString()).toBe('2026-07-01T08:00:00.000Z');
    const winter = parseExifDateTime('2026-01-15 10:00:00')!;
    expect(wallClockToUtc(winter, 'Europe/Paris').toISOString()).toBe('2026-01-15T09:00:00.000Z');
    expect(wallClockToUtc(winter, 'UTC').toISOString()).toBe('2026-01-15T10:00:00.000Z');
  });

  it('uses the offset tag when the camera wrote one, else the event zone', async () => {
    const base = sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } });
    const withOffset = await base
      .clone()
      .withExif({
        IFD0: { Make: 'TestCam' },
        IFD2: { DateTimeOriginal: '2026:05:17 09:30:00', OffsetTimeOriginal: '+02:00' },
      })
      .jpeg()
      .toBuffer();
    const withoutOffset = await base
      .clone()
      .withExif({ IFD2: { DateTimeOriginal: '2026:05:17 09:30:00' } })
      .jpeg()
      .toBuffer();
    const none = await base.clone().jpeg().toBuffer();

    const a = await readExif(withOffset, 'America/New_York');
    expect(a.capturedAt?.toISOString()).toBe('2026-05-17T07:30:00.000Z');
    expect(a.cameraMake).toBe('TestCam');
    expect((await readExif(withoutOffset, 'America/New_York')).capturedAt?.toISOString()).toBe(
      '2026-05-17T13:30:00.000Z',
    );
    expect((await readExif(none, 'UTC')).capturedAt).toBeNull();
  });
});
