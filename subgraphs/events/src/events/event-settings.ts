import { AppError } from '@em/core';
import { EventSettings } from '@em/core/data';

/** An event's settings as an organiser sends them (GraphQL input, CLI flags); absent = unchanged (or the default on creation). */
export interface EventSettingsInput {
  name?: string | null;
  slug?: string | null;
  /** Local date (YYYY-MM-DD) or date and time (YYYY-MM-DDTHH:MM[:SS]) of the event, no zone; null clears it. */
  eventDate?: string | null;
  status?: string | null;
  enabled?: boolean | null;
  bibSearch?: boolean | null;
  selfieSearch?: boolean | null;
  nameSearch?: boolean | null;
  timelineSearch?: boolean | null;
  videoSearch?: boolean | null;
  videoSelfieSearch?: boolean | null;
  confidenceThreshold?: number | null;
  timeZone?: string | null;
  watermarkText?: string | null;
  videoSampleFps?: number | null;
  clipMaxGapSeconds?: number | null;
  clipMinSegmentSeconds?: number | null;
  clipPaddingStartSeconds?: number | null;
  clipPaddingEndSeconds?: number | null;
  clipMaxDurationSeconds?: number | null;
  clipRetentionHours?: number | null;
}

/** A new event's settings where the organiser gave none. */
export const DEFAULT_SETTINGS: Omit<EventSettings, 'name' | 'slug'> = {
  eventDate: null,
  status: 'draft',
  enabled: true,
  bibSearch: false,
  selfieSearch: false,
  nameSearch: false,
  timelineSearch: false,
  videoSearch: false,
  videoSelfieClipping: false,
  confidenceThreshold: null,
  timeZone: 'UTC',
  watermarkText: null,
  coverImageKey: null,
  videoSampleFps: 2,
  clipMaxGapSeconds: 3,
  clipMinSegmentSeconds: 1,
  clipPaddingStartSeconds: 2,
  clipPaddingEndSeconds: 2,
  clipMaxDurationSeconds: 30,
  clipRetentionHours: null,
};

export const EVENT_STATUSES = ['draft', 'active', 'archived'] as const;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const NUMBER_RANGES = {
  confidenceThreshold: [0, 100, 'confidence_threshold'],
  videoSampleFps: [0.1, 10, 'video_sample_fps'],
  clipMaxGapSeconds: [0, 60, 'clip_max_gap_seconds'],
  clipMinSegmentSeconds: [0, 60, 'clip_min_segment_seconds'],
  clipPaddingStartSeconds: [0, 30, 'clip_padding_start_seconds'],
  clipPaddingEndSeconds: [0, 30, 'clip_padding_end_seconds'],
  clipMaxDurationSeconds: [1, 600, 'clip_max_duration_seconds'],
} as const;

export const invalid = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });

/** A single-line text of at most `max` characters, trimmed; empty is refused unless `emptyIsNull`. */
export function text(field: string, value: string, max: number, emptyIsNull = false): string | null {
  const trimmed = value.trim();
  if (!trimmed) {
    if (emptyIsNull) return null;
    throw invalid(field, `${field} must not be empty`);
  }
  if (trimmed.length > max) throw invalid(field, `${field} must be at most ${max} characters`);
  if (CONTROL_CHARACTERS.test(trimmed)) throw invalid(field, `${field} must be one line without control characters`);
  return trimmed;
}

export function slug(value: string, field = 'slug'): string {
  if (value.length > 80 || !SLUG_PATTERN.test(value))
    throw invalid(field, `${field} must be 1 to 80 lower-case letters, digits and single hyphens (e.g. city-10k-2026)`);
  return value;
}

/** A slug made from a name ("Demo City 10K" -> "demo-city-10k"). */
export function slugFromName(name: string): string {
  const made = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return made || 'event';
}

/** The canonical IANA name of a time zone ("europe/paris" -> "Europe/Paris"); offsets and unknown names are refused. */
export function timeZone(value: string): string {
  const refuse = () =>
    invalid(
      'time_zone',
      `time_zone must be an IANA time zone name such as Europe/Paris or UTC, not "${value.slice(0, 64)}"`,
    );
  if (value.length > 64 || !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) throw refuse();
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw refuse();
  }
}

/** A local date or date-time without zone, as stored (`timestamp`): calendar-checked. */
export function eventDate(value: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  const refuse = () =>
    invalid('event_date', 'event_date must be YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (local time of the event, no zone)');
  if (!m) throw refuse();
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1);
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  if (
    +y < 1900 ||
    +y > 2200 ||
    date.getUTCMonth() !== +mo - 1 ||
    date.getUTCDate() !== +d ||
    +h > 23 ||
    +mi > 59 ||
    +s > 59
  )
    throw refuse();
  return date;
}

function number(key: keyof typeof NUMBER_RANGES, value: number): number {
  const [min, max, field] = NUMBER_RANGES[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw invalid(field, `${field} must be a number from ${min} to ${max}`);
  return value;
}

/**
 * The validated change an input asks for, checked against the event's current settings (null when
 * creating): every field on its own, then the rules between fields.
 */
export function validateSettings(
  input: EventSettingsInput,
  current: Partial<Record<keyof EventSettings, unknown>> | null,
): Partial<EventSettings> {
  const patch: Partial<EventSettings> = {};
  const given = <K extends keyof EventSettingsInput>(key: K) =>
    input[key] !== undefined && (input[key] !== null || NULLABLE.has(key));
  if (given('name')) patch.name = text('name', input.name!, 200)!;
  if (given('slug')) patch.slug = slug(input.slug!);
  if (given('eventDate')) patch.eventDate = input.eventDate === null ? null : eventDate(input.eventDate!);
  if (given('status')) {
    if (!(EVENT_STATUSES as readonly string[]).includes(input.status!))
      throw invalid('status', 'status must be draft, active or archived');
    patch.status = input.status as EventSettings['status'];
  }
  for (const flag of ['enabled', 'bibSearch', 'selfieSearch', 'nameSearch', 'timelineSearch', 'videoSearch'] as const) {
    if (given(flag)) patch[flag] = Boolean(input[flag]);
  }
  if (given('videoSelfieSearch')) patch.videoSelfieClipping = Boolean(input.videoSelfieSearch);
  if (given('confidenceThreshold'))
    patch.confidenceThreshold =
      input.confidenceThreshold === null ? null : number('confidenceThreshold', input.confidenceThreshold!);
  if (given('timeZone')) patch.timeZone = timeZone(input.timeZone!);
  if (given('watermarkText'))
    patch.watermarkText = input.watermarkText === null ? null : text('watermark_text', input.watermarkText!, 100, true);
  for (const key of [
    'videoSampleFps',
    'clipMaxGapSeconds',
    'clipMinSegmentSeconds',
    'clipPaddingStartSeconds',
    'clipPaddingEndSeconds',
    'clipMaxDurationSeconds',
  ] as const) {
    if (given(key)) patch[key] = number(key, input[key]!);
  }
  if (given('clipRetentionHours')) {
    const hours = input.clipRetentionHours;
    if (hours !== null && (!Number.isSafeInteger(hours) || hours! < 1 || hours! > 8760))
      throw invalid(
        'clip_retention_hours',
        'clip_retention_hours must be a whole number of hours from 1 to 8760 (a year), or null to keep clips',
      );
    patch.clipRetentionHours = hours ?? null;
  }

  const merged = { ...DEFAULT_SETTINGS, ...(current as Partial<EventSettings>), ...patch };
  if (input.videoSelfieSearch && !merged.videoSearch)
    throw invalid('video_selfie_search', 'video_selfie_search needs video_search on');
  if (merged.clipMinSegmentSeconds > merged.clipMaxDurationSeconds) {
    throw invalid('clip_min_segment_seconds', 'clip_min_segment_seconds must not exceed clip_max_duration_seconds');
  }
  return patch;
}

/** Fields that null clears; null on any other field means "unchanged". */
const NULLABLE = new Set<keyof EventSettingsInput>([
  'eventDate',
  'confidenceThreshold',
  'watermarkText',
  'clipRetentionHours',
]);
