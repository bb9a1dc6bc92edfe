import { containsNul } from './nul-characters';

describe('containsNul', () => {
  it('finds a NUL in nested variables and keys, and nothing in clean requests', () => {
    expect(containsNul({ query: 'q', variables: { bib: '12\u000034' } })).toBe(true);
    expect(containsNul({ variables: { ids: ['a', 'b\u0000'] } })).toBe(true);
    expect(containsNul({ variables: { ['k\u0000']: 1 } })).toBe(true);
    expect(containsNul([{ query: 'q' }, { variables: { x: '\u0000' } }])).toBe(true);
    expect(containsNul({ query: 'query { a }', variables: { bib: '1234', n: 3, ok: true, none: null } })).toBe(false);
  });
});
