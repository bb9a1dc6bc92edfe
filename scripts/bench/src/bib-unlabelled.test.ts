import { storedFragments } from './bib-unlabelled';

describe('storedFragments (the fragment count of bib-races)', () => {
  const labels: Record<string, string[]> = { 'set1_16.JPG': ['1463'], 'set1_71.JPG': ['560'], 'set1_83.JPG': ['168'] };
  const labelsOf = (photo: string) => labels[photo] ?? [];

  it('counts a wrong read that is a part of a longer bib labelled on its photo, not the same digits elsewhere', () => {
    expect(storedFragments('rbnr', ['463 (set1_16.JPG)', '463 (set1_71.JPG)'], labelsOf)).toEqual([
      '463 (set1_16.JPG)',
    ]);
  });

  it('counts a part of a bib seen but not labelled, and a read looked at as a hidden bib’s fragment', () => {
    const wrong = ['247 (set1_83.JPG)', '297 (set1_74.JPG)', '21 (set1_80.JPG)'];
    expect(storedFragments('rbnr', wrong, labelsOf)).toEqual(wrong);
  });

  it('leaves out a wrong read that is no part of a bib (a shirt print, a whole unlabelled bib) and other families', () => {
    expect(storedFragments('rbnr', ['2000 (set1_71.JPG)', '2475 (set1_83.JPG)', '16 (set1_83.JPG)'], labelsOf)).toEqual(
      ['16 (set1_83.JPG)'],
    );
    expect(storedFragments('bibs', ['297 (set1_74.JPG)'], labelsOf)).toEqual([]);
  });
});
