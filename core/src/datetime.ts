import { AppError } from './errors';

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:MM:SS` without zone, read in UTC (services run with TZ=UTC). */
export function formatDateTime(date: Date | null | undefined): string | null {
  if (!date) return null;
  return `${formatDate(date)}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** `YYYY-MM-DD` of the UTC calendar. */
export function formatDate(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

export function toEpochSeconds(date: Date | null | undefined): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}

/** `HH:MM:SS` for a position (seconds) inside a video. */
export function formatClockTime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/**
 * A date argument of the API, or a 400: an invalid date (e.g. "0000-00-00") or one outside the
 * years 1 to 9999 (what Postgres and the formats above hold) never reaches a query.
 */
export function dateArgument(name: string, date: Date | null | undefined): Date | null {
  if (date === null || date === undefined) return null;
  const year = date instanceof Date ? date.getUTCFullYear() : NaN;
  if (!Number.isFinite(year) || year < 1 || year > 9999) {
    throw new AppError('BAD_REQUEST', `${name} must be a date between the years 1 and 9999`);
  }
  return date;
}
