import { csvField, monthOf, monthsBetween, monthWindow, totalsPerMonth, usageCsv } from './usage-report';

describe('the usage report of the dashboard', () => {
  it('asks for whole months, the last one included, and refuses a window that is not one', () => {
    expect(monthWindow('2026-01', '2026-12')).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2027-01-01T00:00:00.000Z',
    });
    expect(monthWindow('2026-03', '2026-02')).toEqual({ error: 'From must not be after To.' });
    expect(monthWindow('2026-13', '2026-12')).toHaveProperty('error');
    expect(monthWindow('', '2026-12')).toHaveProperty('error');
    expect(monthOf(new Date('2026-01-15T12:00:00Z'), 11)).toBe('2025-02');
    expect(monthsBetween('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('sums the rows per month, months without usage at zero', () => {
    const row = (month: string, eventId: number, photos: number) => ({
      month,
      eventId,
      faceSearchesBilled: 1,
      photosProcessed: photos,
      videosIndexed: 0,
      clipsMade: 0,
    });
    const totals = totalsPerMonth([row('2026-01', 1, 5), row('2026-01', 2, 7)], ['2026-01', '2026-02']);
    expect(totals.get('2026-01')).toEqual({
      faceSearchesBilled: 2,
      photosProcessed: 12,
      videosIndexed: 0,
      clipsMade: 0,
    });
    expect(totals.get('2026-02')?.photosProcessed).toBe(0);
  });

  it('quotes CSV fields that need it and defuses spreadsheet formulas in text', () => {
    expect(csvField('Trail, "the big one"')).toBe('"Trail, ""the big one"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvField('-5K')).toBe("'-5K");
    expect(csvField(-5)).toBe('-5');
    const csv = usageCsv(
      [{ month: '2026-11', eventId: 3, faceSearchesBilled: 4, photosProcessed: 120, videosIndexed: 1, clipsMade: 2 }],
      () => 'City 10K, "night" edition',
    );
    expect(csv).toBe(
      'month,event_id,event,face_searches_billed,photos_processed,videos_indexed,clips_made\r\n' +
        '2026-11,3,"City 10K, ""night"" edition",4,120,1,2\r\n',
    );
  });
});
