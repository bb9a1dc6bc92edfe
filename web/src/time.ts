// Times shown in the event's zone (details.time_zone), UTC when the event names none.

export function zoneOf(zone: string | undefined): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone || 'UTC' });
    return zone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** The spec's `YYYY-MM-DDTHH:MM:SS` datetimes are UTC. */
export const fromSpecDateTime = (value: string) => new Date(`${value}Z`);

export function formatDate(date: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  }).format(date);
}

export function formatTime(date: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  }).format(date);
}

export function formatHour(date: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit' }).format(date);
}

export function formatDay(date: Date, zone: string, withYear = false): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withYear ? { year: 'numeric' } : {}),
  }).format(date);
}

/** A timeline bucket (UTC date and hour) as the epoch-second window of the API. */
export function hourWindow(date: string, hour: number | null): { from: number; to: number } {
  const start = Date.parse(`${date}T00:00:00Z`) / 1000 + (hour ?? 0) * 3600;
  return { from: start, to: start + (hour === null ? 86400 : 3600) };
}
