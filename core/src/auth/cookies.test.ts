import { cookieValues, parseCookies } from './cookies';

describe('parseCookies', () => {
  it('reads each cookie by name, the first of a name (the most specific path) winning', () => {
    expect(parseCookies('a=1; b=two=2;c=; a=shadowed')).toEqual({ a: '1', b: 'two=2', c: '' });
    expect(parseCookies(undefined)).toEqual({});
    expect(parseCookies('novalue; =x')).toEqual({});
    const odd = parseCookies('__proto__=x; constructor=y');
    expect([odd.__proto__, odd.constructor, Object.getPrototypeOf(odd)]).toEqual(['x', 'y', null]);
  });

  it('reads every value of one name', () => {
    expect(cookieValues('a=1; b=2; a=3;a=', 'a')).toEqual(['1', '3', '']);
    expect(cookieValues(undefined, 'a')).toEqual([]);
  });
});
