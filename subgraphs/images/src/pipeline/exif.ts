import exifr from 'exifr';

export interface PhotoExif {
  capturedAt: Date | null;
  cameraMake: string | null;
  artist: string | null;
}

/** Offset of `timeZone` from UTC, in minutes, at the instant `utc`. */
function zoneOffsetMinutes(timeZone: string, utc: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(utc);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - utc.getTime()) / 60000);
}

/** A wall-clock time in `timeZone` (given as UTC fields) to the real instant. */
export function wallClockToUtc(wall: Date, timeZone: string): Date {
  let guess = new Date(wall.getTime() - zoneOffsetMinutes(timeZone, wall) * 60000);
  // Second pass settles times near a DST change.
  guess = new Date(wall.getTime() - zoneOffsetMinutes(timeZone, guess) * 60000);
  return guess;
}

/** `2015:01:11 10:09:50` (EXIF) as UTC fields; null when malformed or zeroed. */
export function parseExifDateTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(value.trim());
  if (!m || m[1] === '0000') return null;
  const date = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `+02:00` / `-0530` to minutes. */
export function parseExifOffset(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(value.trim());
  if (!m) return null;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * Capture time from EXIF: `DateTimeOriginal` (else `CreateDate`) with its offset tag
 * (`OffsetTimeOriginal`, else `OffsetTime`); a camera time without offset is read in the event's
 * time zone. Files without EXIF give nulls.
 */
export async function readExif(image: Buffer, eventTimeZone: string): Promise<PhotoExif> {
  let tags: Record<string, unknown> | undefined;
  try {
    tags = (await exifr.parse(image, {
      reviveValues: false,
      pick: [
        'DateTimeOriginal',
        'CreateDate',
        'OffsetTimeOriginal',
        'OffsetTimeDigitized',
        'OffsetTime',
        'Make',
        'Artist',
      ],
    })) as Record<string, unknown> | undefined;
  } catch {
    tags = undefined;
  }
  if (!tags) return { capturedAt: null, cameraMake: null, artist: null };
  const wall = parseExifDateTime(tags.DateTimeOriginal) ?? parseExifDateTime(tags.CreateDate);
  const offset =
    parseExifOffset(tags.OffsetTimeOriginal) ??
    parseExifOffset(tags.OffsetTimeDigitized) ??
    parseExifOffset(tags.OffsetTime);
  let capturedAt: Date | null = null;
  if (wall)
    capturedAt = offset !== null ? new Date(wall.getTime() - offset * 60000) : wallClockToUtc(wall, eventTimeZone);
  // Camera text is anyone's bytes: control characters (a NUL, which Postgres text cannot hold) become spaces.
  // eslint-disable-next-line no-control-regex -- the control characters are what is matched
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(/[\u0000-\u001f\u007f]/g, ' ').trim() || null : null);
  return { capturedAt, cameraMake: text(tags.Make), artist: text(tags.Artist) };
}
