import { formatDateTime } from '@em/core';
import { Event, eventHasFeature } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';

/** An event as the API shows it: its settings and the flags as they apply (`videoSelfieSearch` needs both video flags). */
export interface EventView {
  id: number;
  orgId: number;
  name: string;
  slug: string;
  eventDate: string | null;
  status: string;
  enabled: boolean;
  bibSearch: boolean;
  selfieSearch: boolean;
  nameSearch: boolean;
  videoSearch: boolean;
  videoSelfieSearch: boolean;
  timelineSearch: boolean;
  coverImageUrl: string | null;
  timeZone: string;
  confidenceThreshold: number | null;
  watermarkText: string | null;
  videoSampleFps: number;
  clipMaxGapSeconds: number;
  clipMinSegmentSeconds: number;
  clipPaddingStartSeconds: number;
  clipPaddingEndSeconds: number;
  clipMaxDurationSeconds: number;
  clipRetentionHours: number | null;
}

export function eventView(e: Event, store: Pick<ObjectStore, 'publicUrl'>): EventView {
  return {
    id: e.id,
    orgId: e.organisation.id,
    name: e.name,
    slug: e.slug,
    eventDate: formatDateTime(e.eventDate),
    status: e.status,
    enabled: e.enabled,
    bibSearch: e.bibSearch,
    selfieSearch: e.selfieSearch,
    nameSearch: e.nameSearch,
    videoSearch: e.videoSearch,
    videoSelfieSearch: eventHasFeature(e, 'videoSelfieSearch'),
    timelineSearch: e.timelineSearch,
    coverImageUrl: e.coverImageKey ? store.publicUrl(e.coverImageKey) : null,
    timeZone: e.timeZone,
    confidenceThreshold: e.confidenceThreshold ?? null,
    watermarkText: e.watermarkText ?? null,
    videoSampleFps: e.videoSampleFps,
    clipMaxGapSeconds: e.clipMaxGapSeconds,
    clipMinSegmentSeconds: e.clipMinSegmentSeconds,
    clipPaddingStartSeconds: e.clipPaddingStartSeconds,
    clipPaddingEndSeconds: e.clipPaddingEndSeconds,
    clipMaxDurationSeconds: e.clipMaxDurationSeconds,
    clipRetentionHours: e.clipRetentionHours ?? null,
  };
}
