import type { PhotosRepository } from '../repositories/photos.repository';
import type { StartListRepository } from '../repositories/start-list.repository';
import { BibRead, rejudgedReads, startListView, StartListView, withoutWeakEnd } from './bib-read-rule';

/**
 * What the rule needs of the event's start list for these reads only (a photo job must not load a
 * 100,000-line list): null when the event has none.
 */
export async function startListFor(
  startLists: Pick<StartListRepository, 'count' | 'bibsAmong' | 'containing'>,
  eventId: number,
  reads: readonly BibRead[],
): Promise<StartListView | null> {
  if ((await startLists.count(eventId)) === 0) return null;
  const listed = await startLists.bibsAmong(eventId, reads.filter((r) => !r.partial).flatMap(numbersToLookUp));
  const containing = new Map<string, string[]>();
  for (const read of reads)
    if (read.partial) containing.set(read.bib, await startLists.containing(eventId, read.bib, 2));
  return { has: (bib) => listed.has(bib), containing: (fragment) => containing.get(fragment) ?? [] };
}

/** A whole read's number, and the one it makes without its doubtful end digit (the rule may complete it to that). */
function numbersToLookUp(read: BibRead): string[] {
  const shorter = withoutWeakEnd(read);
  return shorter ? [read.bib, shorter] : [read.bib];
}

/**
 * Judges the event's stored reads again under its current start list (after an import or a
 * replacement), without reading the photos again, and settles its unsure reads (a read the list now rejects
 * no longer confirms another); returns how many reads changed judgement.
 */
export async function rejudgeEventReads(
  photos: Pick<PhotosRepository, 'bibReadsOf' | 'setBibJudgements'>,
  startLists: Pick<StartListRepository, 'bibs'>,
  eventId: number,
): Promise<number> {
  const listed = await startLists.bibs(eventId);
  const changes = rejudgedReads(await photos.bibReadsOf(eventId), listed.length ? startListView(listed) : null);
  await photos.setBibJudgements(eventId, changes);
  return changes.length;
}
