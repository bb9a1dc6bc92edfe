import { PhotoStatus, PhotoStepErrors } from '../db/entities';
import type { BibRead, BibJudgement, BibReadSource, BibReadStatus } from '../bibs/bib-read-rule';

/** A gallery row as Postgres returns it (capture time as epoch milliseconds, no entity hydration). */
export interface GalleryRow {
  id: string;
  event_id: number;
  large_key: string | null;
  thumbnail_key: string | null;
  large_width: number | null;
  large_height: number | null;
  width: number | null;
  height: number | null;
  captured_at_ms: number | string | null;
  photographer_name: string | null;
  original_file_name: string;
  source: string;
  original_key: string;
  external_url: string | null;
}

/** A photo row to insert on import (status `imported`). */
export interface NewPhoto {
  id: string;
  eventId: number;
  contentHash: string;
  originalKey: string;
  originalFileName: string;
  mimeType: string;
  fileSize: number;
  width: number;
  height: number;
  capturedAt: Date | null;
  photographerName: string | null;
  source: string;
}

/** A failed photo of an event, with the reason the organiser sees. */
export interface FailedPhotoRow {
  id: string;
  fileName: string;
  reason: string;
}

/** An event's photos: all of them, processed, failed and published. */
export interface EventPhotoCounts {
  eventId: number;
  total: number;
  processed: number;
  failed: number;
  live: number;
}

/** Per status: how many photos, the latest import and processing times, how many are published. */
export interface PhotoStatusTally {
  status: PhotoStatus;
  count: number;
  lastCreated: Date | string | null;
  lastProcessed: Date | string | null;
  live: number;
}

/** What processing found on a photo, written in one transaction. */
export interface ProcessedPhoto {
  largeKey: string;
  largeWidth: number;
  largeHeight: number;
  thumbnailKey: string;
  width: number;
  height: number;
  processedAt: Date;
  stepErrors: PhotoStepErrors | null;
  /** Set the publication time (when not already published): the event is live. */
  publishAt: Date | null;
  /** Every bib read, as judged (core/src/bibs/bib-read-rule.ts); `read.bib` is what OCR read. */
  bibs: Array<{ read: BibRead; judged: BibJudgement }>;
  faces: Array<{
    embedding: Buffer;
    descriptorVersion: number;
    quality?: number | null;
    score: number;
    box: { x: number; y: number; width: number; height: number };
  }>;
}

/** A box on a photo, 0-1 of its width and height. */
export interface PhotoBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A bib row of a photo as the organiser's review shows it. */
export interface ReviewBibRow {
  id: string;
  photoId: string;
  bib: string;
  /** What OCR read (a fragment when completed); null for a number the organiser added. */
  readText: string | null;
  confidence: number;
  status: BibReadStatus;
  source: BibReadSource;
  box: PhotoBox | null;
}

/** A face of a photo as the organiser's review shows it (never its descriptor). */
export interface ReviewFaceRow {
  id: string;
  photoId: string;
  quality: number | null;
  score: number;
  box: PhotoBox;
}

/**
 * Why a photo is in the review queue: no searchable bib, a read the rule rejected, or a fragment
 * completed from the start list; the organiser's word on a number settles that number.
 */
export type ReviewReason = 'no_bib' | 'rejected_read' | 'completed_read';

export interface ReviewQueueRow {
  photoId: string;
  reasons: ReviewReason[];
}
