// The usage page's pure parts: the month window it asks for, and the CSV it builds from the same rows.

export interface UsageCounts {
  faceSearchesBilled: number;
  photosProcessed: number;
  videosIndexed: number;
  clipsMade: number;
}

export interface UsageRow extends UsageCounts {
  eventId: number;
  /** YYYY-MM */
  month: string;
}

export const METRICS: Array<{ key: keyof UsageCounts; label: string; column: string }> = [
  { key: 'faceSearchesBilled', label: 'Face searches billed', column: 'face_searches_billed' },
  { key: 'photosProcessed', label: 'Photos processed', column: 'photos_processed' },
  { key: 'videosIndexed', label: 'Videos indexed', column: 'videos_indexed' },
  { key: 'clipsMade', label: 'Clips', column: 'clips_made' },
];

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** YYYY-MM of a date, `back` months earlier (UTC, as the report counts). */
export function monthOf(date: Date, back = 0): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - back, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The report's [from, to) for the months from..to, both included; or why they are not a window. */
export function monthWindow(from: string, to: string): { from: string; to: string } | { error: string } {
  const a = MONTH.exec(from);
  const b = MONTH.exec(to);
  if (!a || !b) return { error: 'Choose a month for both From and To (YYYY-MM).' };
  if (from > to) return { error: 'From must not be after To.' };
  const end = new Date(Date.UTC(Number(b[1]), Number(b[2]), 1));
  return { from: `${from}-01T00:00:00.000Z`, to: end.toISOString() };
}

/** Every month from..to, both included (the chart shows empty months too). */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  const [y, m] = from.split('-').map(Number);
  for (let i = 0; months.length < 12 * 10; i++) {
    const month = monthOf(new Date(Date.UTC(y, m - 1 + i, 1)));
    if (month > to) break;
    months.push(month);
  }
  return months;
}

/** Sums of the rows per month. */
export function totalsPerMonth(rows: UsageRow[], months: string[]): Map<string, UsageCounts> {
  const totals = new Map(
    months.map((m) => [m, { faceSearchesBilled: 0, photosProcessed: 0, videosIndexed: 0, clipsMade: 0 }]),
  );
  for (const row of rows) {
    const t = totals.get(row.month);
    if (t) for (const { key } of METRICS) t[key] += row[key];
  }
  return totals;
}

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. Text that a spreadsheet
 * would run as a formula (=, +, -, @, tab, CR first) gets a leading apostrophe: an event name is typed by users.
 */
export function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as CSV: a header, then one line per event and month, CRLF-separated. */
export function usageCsv(rows: UsageRow[], eventName: (eventId: number) => string): string {
  const header = ['month', 'event_id', 'event', ...METRICS.map((m) => m.column)];
  const lines = rows.map((r) => [r.month, r.eventId, eventName(r.eventId), ...METRICS.map((m) => r[m.key])]);
  return [header, ...lines].map((fields) => fields.map(csvField).join(',')).join('\r\n') + '\r\n';
}
