/**
 * Bibs the benchmarks' labels leave out that a person reads in the photo, looked at one by one (RBNR's authors
 * labelled only runners whose face shows; the dev race's list names the front runners). A read of one of them is
 * not an error when precision is judged by eye; recall still counts the labels alone. Keyed by race family, then
 * photo. Reads looked at and left wrong: fragments of half-hidden or cut bibs, a digit under a finger, shirt prints.
 */
export const VISIBLE_UNLABELLED_BIBS: Record<string, Record<string, string[]>> = {
  rbnr: {
    'set1_02.JPG': ['3638'],
    'set1_38.JPG': ['976'],
    'set1_53.JPG': ['3645'],
    'set1_81.JPG': ['3637'],
    'set1_82.JPG': ['327'],
    'set1_83.JPG': ['847', '2475'],
  },
  bibs: { '0236-IMG_0273.JPG': ['1486'] },
};

/** The wrong reads (`bib (photo)`) that are bibs a person reads in the photo though its labels leave them out. */
export function visibleUnlabelled(family: string, wrong: string[]): string[] {
  const visible = VISIBLE_UNLABELLED_BIBS[family] ?? {};
  return wrong.filter((entry) => {
    const match = /^(\S+) \((.+)\)$/.exec(entry);
    return !!match && (visible[match[2]] ?? []).includes(match[1]);
  });
}
