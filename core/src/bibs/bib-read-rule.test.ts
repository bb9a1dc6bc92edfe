import { confirmedStatus, judgeBibRead, rejudgedReads, startListView, withoutWeakEnd } from './bib-read-rule';

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

describe('judgeBibRead: a doubtful end digit', () => {
  const list = startListView(['3628', '1362', '452']);

  it('completes an unlisted read to the listed number its surer digits make (a sheet edge read as a 1)', () => {
    // RBNR set1_69: "13628", its leading 1 read at 0.87 from the sheet's left edge; the runner wears 3628.
    expect(judgeBibRead({ bib: '13628', partial: false, weakEnd: 'first' }, list)).toEqual({
      bib: '3628',
      status: 'completed',
      source: 'completed',
    });
    expect(judgeBibRead({ bib: '4521', partial: false, weakEnd: 'last' }, list)).toMatchObject({
      bib: '452',
      status: 'completed',
    });
  });

  it('keeps a listed read as read, and drops only the doubtful end, never a sure one', () => {
    expect(judgeBibRead({ bib: '1362', partial: false, weakEnd: 'last' }, list)).toMatchObject({
      bib: '1362',
      status: 'accepted',
    });
    // Without the doubtful first digit "13628" would make 1362 too, were its last digit the weak one.
    expect(judgeBibRead({ bib: '13628', partial: false, weakEnd: null }, list)).toMatchObject({ status: 'rejected' });
    expect(judgeBibRead({ bib: '23628', partial: false, weakEnd: 'last' }, list)).toMatchObject({ status: 'rejected' });
    expect(judgeBibRead({ bib: '13628', partial: false, weakEnd: 'first' }, null)).toMatchObject({
      bib: '13628',
      status: 'accepted',
    });
  });

  it('never leaves a single digit or a leading zero', () => {
    expect(withoutWeakEnd({ bib: '21', weakEnd: 'last' })).toBeNull();
    expect(withoutWeakEnd({ bib: '1045', weakEnd: 'first' })).toBeNull();
    expect(withoutWeakEnd({ bib: '1045', weakEnd: 'last' })).toBe('104');
  });
});

describe('rejudgedReads', () => {
  it("judges a stored read's doubtful end digit as the photo job does", () => {
    const row = {
      id: '7',
      readText: '13628',
      bib: '13628',
      partial: false,
      weakEnd: 'first' as const,
      status: 'accepted' as const,
      source: 'read' as const,
    };
    expect(rejudgedReads([row], startListView(['3628']))).toEqual([
      { id: '7', bib: '3628', status: 'completed', source: 'completed' },
    ]);
  });

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

describe('an unsure read (under the confidence bar)', () => {
  const list = startListView(['311', '1463']);

  it('is unconfirmed where the rule would count it, and rejected where it would not', () => {
    expect(judgeBibRead({ bib: '311', partial: false, unsure: true }, null)).toEqual({
      bib: '311',
      status: 'unconfirmed',
      source: 'read',
    });
    expect(judgeBibRead({ bib: '463', partial: true, unsure: true }, list)).toEqual({
      bib: '1463',
      status: 'unconfirmed',
      source: 'completed',
    });
    expect(judgeBibRead({ bib: '312', partial: false, unsure: true }, list).status).toBe('rejected');
    expect(confirmedStatus('completed')).toBe('completed');
    expect(confirmedStatus('read')).toBe('accepted');
  });

  it('stays confirmed through a re-judging that still counts it, and goes back to unconfirmed where the number moved', () => {
    const row = {
      id: '9',
      readText: '311',
      bib: '311',
      partial: false,
      unsure: true,
      status: 'accepted' as const,
      source: 'read' as const,
    };
    expect(rejudgedReads([row], list)).toEqual([]);
    expect(rejudgedReads([row], null)).toEqual([]);
    expect(rejudgedReads([row], startListView(['1463']))).toEqual([
      { id: '9', bib: '311', status: 'rejected', source: 'read' },
    ]);
    expect(rejudgedReads([{ ...row, status: 'rejected' }], list)).toEqual([
      { id: '9', bib: '311', status: 'unconfirmed', source: 'read' },
    ]);
  });
});
