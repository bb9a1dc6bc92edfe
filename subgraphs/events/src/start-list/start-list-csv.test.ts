import { parseStartListCsv, startListCsv } from './start-list-csv';

const csv = (text: string) => parseStartListCsv(Buffer.from(text, 'utf8'));

describe('parseStartListCsv', () => {
  it('reads comma files with first and last names, accents, quotes and CRLF', () => {
    const parsed = csv(
      'bib,first_name,last_name,category,team\r\n1207,Zoé,Dupont-Lefèvre,F40,"Club ""Les Rapides"", Paris"\r\n a12 ,Jean,Ødegård,,\r\n',
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.entries).toEqual([
      {
        bib: '1207',
        firstName: 'Zoé',
        lastName: 'Dupont-Lefèvre',
        name: 'Zoé Dupont-Lefèvre',
        category: 'F40',
        team: 'Club "Les Rapides", Paris',
      },
      { bib: 'A12', firstName: 'Jean', lastName: 'Ødegård', name: 'Jean Ødegård', category: null, team: null },
    ]);
    expect(parsed.lines).toEqual([2, 3]);
  });

  it('reads semicolon files with a BOM and a name column, in any column order and case', () => {
    const parsed = csv('\uFEFFName;Team;BIB\n"Müller; Anna";TV Köln;42\n');
    expect(parsed.errors).toEqual([]);
    expect(parsed.entries).toEqual([
      { bib: '42', firstName: null, lastName: null, name: 'Müller; Anna', category: null, team: 'TV Köln' },
    ]);
  });

  it('reports every bad line with its number and reason, and keeps the good ones', () => {
    const parsed = csv(
      [
        'bib,name',
        '1,Ann',
        ',No Bib',
        '1,Ann Again',
        '1234567,Too Long',
        '12-3,Dash',
        '7,',
        '8,Ok,extra',
        '9,"unclosed',
      ].join('\n'),
    );
    expect(parsed.entries.map((e) => e.bib)).toEqual(['1']);
    expect(parsed.errors).toEqual([
      { line: 3, reason: 'empty bib' },
      { line: 4, reason: 'duplicate bib 1 (also on line 2)' },
      { line: 5, reason: 'bib "1234567" is not 1 to 6 letters or digits' },
      { line: 6, reason: 'bib "12-3" is not 1 to 6 letters or digits' },
      { line: 7, reason: 'no name (name, or first_name and last_name, are empty)' },
      { line: 8, reason: '3 fields where the header has 2' },
      { line: 9, reason: 'a quoted field is not closed' },
    ]);
  });

  it('counts lines of quoted line breaks, and refuses names holding them', () => {
    const parsed = csv('bib,name\n1,"Two\nLines"\n2,Bo\n');
    expect(parsed.errors).toEqual([{ line: 2, reason: 'name holds a line break or control character' }]);
    expect(parsed.lines).toEqual([4]);
  });

  it('refuses a file without header, bib or name column, not UTF-8, or empty', () => {
    expect(csv('').errors).toEqual([{ line: 1, reason: 'the file is empty (a header row is required)' }]);
    expect(csv('1207,Zoé\n').errors[0].reason).toMatch(/no bib column/);
    expect(csv('bib,category\n1,F\n').errors[0].reason).toMatch(/no name column/);
    expect(parseStartListCsv(Buffer.from([0x62, 0x69, 0x62, 0x0a, 0xe9, 0x0a])).errors[0].reason).toMatch(/not UTF-8/);
    expect(csv('bib,name\n').entries).toEqual([]);
  });

  it('writes a name a spreadsheet would run as a formula with an apostrophe first, and reads it back without', () => {
    const names = ['=HYPERLINK("http://evil.example","x")', '@SUM(1+1)', '-5K club', '+44 team', "'Ohana", "'=1+1"];
    const entries = names.map((name, i) => ({
      bib: String(i + 1),
      firstName: null,
      lastName: null,
      name,
      category: null,
      team: name,
    }));
    const written = startListCsv(entries);
    expect(written).toContain('\n1,,,"\'=HYPERLINK(""http://evil.example"",""x"")",,"\'=HYPERLINK(');
    expect(written).toContain("\n2,,,'@SUM(1+1),,'@SUM(1+1)\n");
    expect(written).toContain("\n5,,,'Ohana,,'Ohana\n");
    for (const line of written.split('\n').slice(1, -1))
      for (const field of line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((f) => f.replace(/^"|,$|"$/g, '')))
        expect(field).not.toMatch(/^[=+\-@]/);
    expect(parseStartListCsv(Buffer.from(written)).entries).toEqual(entries);
  });

  it('refuses a line of more fields than a start list has columns for, without holding them', () => {
    const wide = csv(`bib,name${','.repeat(1_000_000)}\n1,Ann\n`);
    expect(wide.errors).toEqual([{ line: 1, reason: 'a line has more than 100 fields' }]);
    const line = csv(`bib,name\n1,Ann\n2,Bob${','.repeat(200)}\n3,Cléo\n`);
    expect(line.errors).toEqual([{ line: 3, reason: 'a line has more than 100 fields' }]);
    expect(line.entries.map((e) => e.bib)).toEqual(['1', '3']);
  });

  it('writes back what it reads', () => {
    const parsed = csv(
      'bib;first_name;last_name;category;team\n1;Zoé;"D, ""Z""";F;\n2;;;;\n'.replace('2;;;;', '2;Al;;;'),
    );
    const again = parseStartListCsv(Buffer.from(startListCsv(parsed.entries)));
    expect(again).toEqual(parsed);
  });
});
