import { PhotoStatus, PhotoStepErrors } from '../db/entities';
import type { BibRead, BibJudgement } from '../bibs/bib-read-rule';

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
  faces: Array<{ embedding: Buffer; descriptorVersion: number; quality?: number | null; score: number; box: { x: number; y: number; width: number; height: number } }>;
}
