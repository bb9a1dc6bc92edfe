import { judgeBibRead, rejudgedReads, startListView } from './bib-read-rule';

describe('judgeBibRead', () => {
  const list = startListView(['1207', '1208', '3456', '88']);

  it('without a start list: whole reads are accepted as before, fragments are not', () => {
    expect(judgeBibRead({ bib: '9999', partial: false }, null)).toEqual({
      bib: '9999',
      status: 'accepted',
      source: 'read',
    });
    expect(judgeBibRead({ bib: '45', partial: true }, null)).toEqual({ bib: '45', status: 'rejected', source: 'read' });
  });

  it('with a start list: a whole read is accepted only when listed', () => {
    expect(judgeBibRead({ bib: '1207', partial: false }, list)).toEqual({
      bib: '1207',
      status: 'accepted',
      source: 'read',
    });
    expect(judgeBibRead({ bib: '2026', partial: false }, list)).toEqual({
      bib: '2026',
      status: 'rejected',
      source: 'read',
    });
  });

  it('a fragment completes to the one listed number holding it contiguously', () => {
    expect(judgeBibRead({ bib: '345', partial: true }, list)).toEqual({
      bib: '3456',
      status: 'completed',
      source: 'completed',
    });
    expect(judgeBibRead({ bib: '56', partial: true }, list)).toEqual({
      bib: '3456',
      status: 'completed',
      source: 'completed',
    });
  });

  it('a fragment that fits several listed numbers, none, or only with a gap is rejected', () => {
    expect(judgeBibRead({ bib: '120', partial: true }, list)).toMatchObject({ bib: '120', status: 'rejected' });
    expect(judgeBibRead({ bib: '77', partial: true }, list)).toMatchObject({ status: 'rejected' });
    expect(judgeBibRead({ bib: '346', partial: true }, list)).toMatchObject({ status: 'rejected' });
    // "8" is in 1208 and 88: two numbers, so not one participant.
    expect(judgeBibRead({ bib: '8', partial: true }, list)).toMatchObject({ status: 'rejected' });
  });
});

describe('rejudgedReads', () => {
  it('changes only the reads whose judgement moved, never the organiser rows', () => {
    const rows = [
      { id: '1', readText: '1207', bib: '1207', partial: false, status: 'accepted' as const, source: 'read' as const },
      { id: '2', readText: '2026', bib: '2026', partial: false, status: 'accepted' as const, source: 'read' as const },
      { id: '3', readText: '345', bib: '345', partial: true, status: 'rejected' as const, source: 'read' as const },
      {
        id: '4',
        readText: '5555',
        bib: '5555',
        partial: false,
        status: 'accepted' as const,
        source: 'organiser' as const,
      },
    ];
    expect(rejudgedReads(rows, startListView(['1207', '3456']))).toEqual([
      { id: '2', bib: '2026', status: 'rejected', source: 'read' },
      { id: '3', bib: '3456', status: 'completed', source: 'completed' },
    ]);
    expect(rejudgedReads([{ ...rows[1], status: 'rejected' }], null)).toEqual([
      { id: '2', bib: '2026', status: 'accepted', source: 'read' },
    ]);
  });
});
