/** A number the BIB reader found on a photo. */
export interface BibRead {
  /** What was read, normalised (upper case, no spaces). */
  bib: string;
  confidence: number;
  /** The bib's box, 0-1 of the photo's width and height, when the reader gives it. */
  box?: { x: number; y: number; width: number; height: number } | null;
  /** The bib was cut by the frame or an occluder: what was read may be a fragment of the number. */
  partial: boolean;
  /**
   * The read's one least sure digit is its first or last: it may be print beside the number read as a
   * digit (a sheet's edge read as a leading 1), so a start list may know the number without it.
   */
  weakEnd?: WeakEnd | null;
  /**
   * Read under the reader's confidence bar (but not far under): the number counts only once a photo taken near
   * it in time holds it too (`unconfirmed` until then; a runner is photographed more than once).
   */
  unsure?: boolean;
}

export type WeakEnd = 'first' | 'last';

export type BibReadStatus = 'accepted' | 'rejected' | 'completed' | 'unconfirmed';
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

/**
 * How near in time another photo must be to confirm an unsure read (capture times, else import times): a runner
 * passing a photographer is in a burst of frames, and in the next photographer's a few seconds on.
 */
export const SIGHTING_SECONDS = 60;

/** The statuses participants search by. */
export const SEARCHABLE_BIB_STATUSES: readonly BibReadStatus[] = ['accepted', 'completed'];

/**
 * The one rule for a bib read. Without a start list: a whole read is accepted, a fragment is not.
 * With one: a whole read is accepted only when listed, or completed to the listed number its ink shows
 * without a doubtful end digit (`withoutWeakEnd`); a fragment completes to the one listed
 * number holding its characters contiguously (when it fits several, or none, it is rejected).
 * An unsure read the rule would count is `unconfirmed` until a photo near it holds the number
 * (`confirmedStatus`; the photos repository's `settleUnsure`), and again `unconfirmed` when that photo goes.
 */
export function judgeBibRead(
  read: Pick<BibRead, 'bib' | 'partial' | 'weakEnd' | 'unsure'>,
  startList: StartListView | null,
): BibJudgement {
  const judged = judgeSureRead(read, startList);
  return read.unsure && judged.status !== 'rejected' ? { ...judged, status: 'unconfirmed' } : judged;
}

/** The status an unconfirmed read takes once confirmed: what its source says the rule counted it as. */
export function confirmedStatus(source: BibJudgement['source']): BibReadStatus {
  return source === 'completed' ? 'completed' : 'accepted';
}

function judgeSureRead(
  read: Pick<BibRead, 'bib' | 'partial' | 'weakEnd'>,
  startList: StartListView | null,
): BibJudgement {
  if (!startList) return { bib: read.bib, status: read.partial ? 'rejected' : 'accepted', source: 'read' };
  if (!read.partial) {
    if (startList.has(read.bib)) return { bib: read.bib, status: 'accepted', source: 'read' };
    // No participant wears the read; the one listed number its surer digits make is what the bib shows.
    const shorter = withoutWeakEnd(read);
    if (shorter && startList.has(shorter)) return { bib: shorter, status: 'completed', source: 'completed' };
    return { bib: read.bib, status: 'rejected', source: 'read' };
  }
  const candidates = startList.containing(read.bib);
  if (candidates.length === 1) return { bib: candidates[0], status: 'completed', source: 'completed' };
  return { bib: read.bib, status: 'rejected', source: 'read' };
}

/** The number a read makes without its doubtful end digit (null: no such digit, or under 2 digits left). */
export function withoutWeakEnd(read: Pick<BibRead, 'bib' | 'weakEnd'>): string | null {
  if (!read.weakEnd || read.bib.length < 3) return null;
  const shorter = read.weakEnd === 'first' ? read.bib.slice(1) : read.bib.slice(0, -1);
  return shorter.startsWith('0') ? null : shorter;
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
  /** The read's doubtful end digit, when it had one (`BibRead.weakEnd`). */
  weakEnd?: WeakEnd | null;
  /** Read under the confidence bar (`BibRead.unsure`). */
  unsure?: boolean;
  status: BibReadStatus;
  source: BibReadSource;
}

/**
 * The reads whose judgement changes under `startList` (organiser rows are the organiser's, never
 * re-judged): what to write so the stored reads follow the rule, without reading the photos again.
 * An unsure read comes back `unconfirmed` (confirm the event's reads after writing these).
 */
export function rejudgedReads(
  rows: readonly StoredBibReadRow[],
  startList: StartListView | null,
): Array<{ id: string } & BibJudgement> {
  const changes: Array<{ id: string } & BibJudgement> = [];
  for (const row of rows) {
    if (row.source === 'organiser') continue;
    const judged = judgeBibRead(
      { bib: row.readText, partial: row.partial, weakEnd: row.weakEnd, unsure: row.unsure },
      startList,
    );
    // A confirmed unsure read stays confirmed while the rule still counts it as the same number.
    const status =
      judged.status === 'unconfirmed' && row.status === confirmedStatus(judged.source) ? row.status : judged.status;
    if (judged.bib !== row.bib || status !== row.status || judged.source !== row.source)
      changes.push({ id: row.id, ...judged });
  }
  return changes;
}
