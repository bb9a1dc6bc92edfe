import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('jsonDepthExceeds', () => {
  it('accepts scalars and JSON up to the limit', () => {
    expect(jsonDepthExceeds('text')).toBe(false);
    expect(jsonDepthExceeds(null)).toBe(false);
    expect(jsonDepthExceeds({ a: [1, { b: 2 }] })).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
  });

  it('refuses one level more, and 100,000 levels without overflowing the stack', () => {
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toBe(true);
  });
});
