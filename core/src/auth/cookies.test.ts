import { parseCookies } from './cookies';

describe('parseCookies', () => {
  it('reads each cookie by name, the first of a name (the most specific path) winning', () => {
    expect(parseCookies('a=1; b=two=2;c=; a=shadowed')).toEqual({ a: '1', b: 'two=2', c: '' });
    expect(parseCookies(undefined)).toEqual({});
    expect(parseCookies('novalue; =x')).toEqual({});
    const odd = parseCookies('__proto__=x; constructor=y');
    expect([odd.__proto__, odd.constructor, Object.getPrototypeOf(odd)]).toEqual(['x', 'y', null]);
  });
});
