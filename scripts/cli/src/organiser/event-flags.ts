import type { EventSettingsInput } from '@em/subgraph-events';
import { readFileSync } from 'node:fs';
import { booleanFlag, Flags, list, numberOrNull } from './flags';

/** The spec's flag names, as the CLI takes them, and the settings they set. */
export const FEATURE_FLAGS = {
  bib_search: 'bibSearch',
  selfie_search: 'selfieSearch',
  name_search: 'nameSearch',
  timeline_search: 'timelineSearch',
  video_search: 'videoSearch',
  video_selfie_search: 'videoSelfieSearch',
} as const;
type FlagName = keyof typeof FEATURE_FLAGS;

export const EVENT_OPTIONS = `[--name N] [--slug S] [--date YYYY-MM-DD[THH:MM]] [--time-zone Europe/Paris] [--status draft|active|archived]
      [--flags bib_search,selfie_search,...]   exactly these flags on, the others off
      [--enable FLAGS] [--disable FLAGS]        switch some flags on or off
      [--enabled true|false] [--threshold 0-100|none] [--watermark TEXT|none] [--cover IMAGE]
      [--video-fps N] [--clip-max-gap S] [--clip-min-segment S] [--clip-padding-start S] [--clip-padding-end S]
      [--clip-max-duration S] [--clip-retention-hours H|none]
    flags: ${Object.keys(FEATURE_FLAGS).join(', ')}`;

export const EVENT_FLAG_NAMES = [
  'name',
  'slug',
  'date',
  'time-zone',
  'status',
  'flags',
  'enable',
  'disable',
  'enabled',
  'threshold',
  'watermark',
  'cover',
  'video-fps',
  'clip-max-gap',
  'clip-min-segment',
  'clip-padding-start',
  'clip-padding-end',
  'clip-max-duration',
  'clip-retention-hours',
];

function flagNames(value: string | undefined): FlagName[] {
  const names = list(value);
  const unknown = names.filter((n) => !(n in FEATURE_FLAGS));
  if (unknown.length)
    throw new Error(`unknown flag ${unknown.join(', ')} (known: ${Object.keys(FEATURE_FLAGS).join(', ')})`);
  return names as FlagName[];
}

/** The settings the options ask for; the services validate every value. */
export function eventInput(flags: Flags): EventSettingsInput {
  const input: EventSettingsInput = {};
  const set = <K extends keyof EventSettingsInput>(key: K, value: EventSettingsInput[K] | undefined) => {
    if (value !== undefined) input[key] = value;
  };
  set('name', flags.name);
  set('slug', flags.slug);
  set('eventDate', flags.date === 'none' ? null : flags.date);
  set('timeZone', flags['time-zone']);
  set('status', flags.status);
  set('enabled', booleanFlag(flags, 'enabled'));
  if (flags.flags !== undefined) {
    const on = new Set(flagNames(flags.flags));
    for (const [name, key] of Object.entries(FEATURE_FLAGS)) input[key] = on.has(name as FlagName);
  }
  for (const name of flagNames(flags.enable)) input[FEATURE_FLAGS[name]] = true;
  for (const name of flagNames(flags.disable)) input[FEATURE_FLAGS[name]] = false;
  set('confidenceThreshold', numberOrNull(flags, 'threshold'));
  set('watermarkText', flags.watermark === 'none' ? null : flags.watermark);
  set('videoSampleFps', numberOrNull(flags, 'video-fps') ?? undefined);
  set('clipMaxGapSeconds', numberOrNull(flags, 'clip-max-gap') ?? undefined);
  set('clipMinSegmentSeconds', numberOrNull(flags, 'clip-min-segment') ?? undefined);
  set('clipPaddingStartSeconds', numberOrNull(flags, 'clip-padding-start') ?? undefined);
  set('clipPaddingEndSeconds', numberOrNull(flags, 'clip-padding-end') ?? undefined);
  set('clipMaxDurationSeconds', numberOrNull(flags, 'clip-max-duration') ?? undefined);
  set('clipRetentionHours', numberOrNull(flags, 'clip-retention-hours'));
  return input;
}

export function coverFile(flags: Flags): Buffer | null {
  if (!flags.cover) return null;
  try {
    return readFileSync(flags.cover);
  } catch {
    throw new Error(`--cover: cannot read ${flags.cover}`);
  }
}
