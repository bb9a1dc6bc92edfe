import { chooseEncoding, entityTag, noneMatchHit } from './conditional';

describe('entityTag', () => {
  it('is a quoted strong tag that changes with any part', () => {
    const tag = entityTag(['event', 'v3', '/x']);
    expect(tag).toMatch(/^"[\w-]{22}"$/);
    expect(entityTag(['event', 'v3', '/x'])).toBe(tag);
    expect(entityTag(['event', 'v4', '/x'])).not.toBe(tag);
    // Parts are separated: moving a boundary changes the tag.
    expect(entityTag(['ab', 'c'])).not.toBe(entityTag(['a', 'bc']));
  });
});

describe('noneMatchHit', () => {
  const tag = entityTag(['x']);
  const base = tag.slice(1, -1);

  it('finds the tag in a list, weakly compared, with or without its coding suffix', () => {
    expect(noneMatchHit(tag, tag)).toBe(tag);
    expect(noneMatchHit(`"other", W/${tag}`, tag)).toBe(tag);
    expect(noneMatchHit(`"${base}-br"`, tag)).toBe(`"${base}-br"`);
    expect(noneMatchHit(`"${base}-gzip"`, tag)).toBe(`"${base}-gzip"`);
  });

  it('does not match other tags, `*`, unquoted or absurd headers', () => {
    expect(noneMatchHit(undefined, tag)).toBeNull();
    expect(noneMatchHit('"other"', tag)).toBeNull();
    expect(noneMatchHit('*', tag)).toBeNull();
    expect(noneMatchHit(base, tag)).toBeNull();
    expect(noneMatchHit(`"${base}-deflate"`, tag)).toBeNull();
    expect(noneMatchHit(`${'"a", '.repeat(2000)}${tag}`, tag)).toBeNull();
  });
});

describe('chooseEncoding', () => {
  it('prefers brotli, then gzip, and honours q=0', () => {
    expect(chooseEncoding('gzip, deflate, br')).toBe('br');
    expect(chooseEncoding('gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('gzip');
    expect(chooseEncoding('identity')).toBe('identity');
    expect(chooseEncoding(undefined)).toBe('identity');
  });
});
