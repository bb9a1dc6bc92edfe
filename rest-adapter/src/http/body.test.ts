import { parseJsonBody } from './body';

describe('parseJsonBody', () => {
  it('parses JSON bodies, an empty one as undefined', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,{"b":2}]}'), 'application/json')).toEqual({ a: [1, { b: 2 }] });
    expect(parseJsonBody(Buffer.alloc(0), 'application/json')).toBeUndefined();
  });

  it('refuses a body nested 10,000 levels with a 400 naming the depth (never a stack overflow)', () => {
    const deep = Buffer.from(`{"identifier":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    expect(() => parseJsonBody(deep, 'application/json')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringMatching(/deeper than 64 levels/) }),
    );
  });
});
