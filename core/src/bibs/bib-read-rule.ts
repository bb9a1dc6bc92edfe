/** A number the BIB reader found on a photo. */
export interface BibRead {
  /** What was read, normalised (upper case, no spaces). */
  bib: string;
  confidence: number;
  /** The bib's box, 0-1 of the photo's width and height, when the reader gives it. */
  box?: { x: number; y: number; width: number; height: number } | null;
  /** The bib was cut by the frame or an occluder: what was read may be a fragment of the number. */
  partial: boolean;
}

export type BibReadStatus = 'accepted' | 'rejected' | 'completed';
export type BibReadSource = 'read' | 'completed' | 'organiser';

/** How a read counts: the number stored, and whether participants find the photo by it. */
export interface BibJudgement {
  /** The number stored: the read, or the listed number a fragment completes to. */
  bib: string;
  status: BibReadStatus;
  source: Exclude<BibReadSource, 'organiser'>;
}

/** What the rule needs of an event's start list. */
export interface StartListView {
  has(bib: string): boolean;
  /** Listed numbers holding `fragment` as a contiguous part (two are enough to know it is not one). */
  containing(fragment: string): readonly string[];
}

/** The statuses participants search by. */
export const SEARCHABLE_BIB_STATUSES: readonly BibReadStatus[] = ['accepted', 'completed'];

/**
 * The one rule for a bib read. Without a start list: a whole read is accepted, a fragment is not.
 * With one: a whole read is accepted only when listed; a fragment completes to the one listed
 * number holding its characters contiguously (when it fits several, or none, it is rejected).
 */
export function judgeBibRead(read: Pick<BibRead, 'bib' | 'partial'>, startList: StartListView | null): BibJudgement {
  if (!startList) return { bib: read.bib, status: read.partial ? 'rejected' : 'accepted', source: 'read' };
  if (!read.partial)
    return { bib: read.bib, status: startList.has(read.bib) ? 'accepted' : 'rejected', source: 'read' };
  const candidates = startList.containing(read.bib);
  if (candidates.length === 1) return { bib: candidates[0], status: 'completed', source: 'completed' };
  return { bib: read.bib, status: 'rejected', source: 'read' };
}

/** A start list held in memory (re-judging an event's stored reads at once). */
export function startListView(bibs: Iterable<string>): StartListView {
  const listed = new Set(bibs);
  return {
    has: (bib) => listed.has(bib),
    containing(fragment) {
      const found: string[] = [];
      for (const bib of listed) if (bib.includes(fragment) && found.push(bib) >= 2) break;
      return found;
    },
  };
}

/** A stored read as re-judging sees it. */
export interface StoredBibReadRow {
  id: string;
  /** What OCR read (the row's bib unless it was completed). */
  readText: string;
  bib: string;
  partial: boolean;
  status: BibReadStatus;
  source: BibReadSource;
}

/**
 * The reads whose judgement changes under `startList` (organiser rows are the organiser's, never
 * re-judged): what to write so the stored reads follow the rule, without reading the photos again.
 */
export function rejudgedReads(
  rows: readonly StoredBibReadRow[],
  startList: StartListView | null,
): Array<{ id: string } & BibJudgement> {
  const changes: Array<{ id: string } & BibJudgement> = [];
  for (const row of rows) {
    if (row.source === 'organiser') continue;
    const judged = judgeBibRead({ bib: row.readText, partial: row.partial }, startList);
    if (judged.bib !== row.bib || judged.status !== row.status || judged.source !== row.source)
      changes.push({ id: row.id, ...judged });
  }
  return changes;
}
