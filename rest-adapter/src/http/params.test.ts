import { AppError } from '@em/core';
import { pathInt, queryInt, requiredQueryInt } from './params';
import { compilePath } from './router';

const input = (params: Record<string, string>, query = '') => ({
  params,
  query: new URLSearchParams(query),
  body: undefined,
});
const statusOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as AppError).status;
  }
  return 'no error';
};

describe('route parameters', () => {
  it('reads path ids as positive 32-bit integers, else 400', () => {
    expect(pathInt('orgId', 'org_id')(input({ orgId: '42' }))).toBe(42);
    for (const bad of ['abc', '-1', '0', '1.5', '99999999999', '']) {
      expect(statusOf(() => pathInt('orgId', 'org_id')(input({ orgId: bad })))).toBe(400);
    }
  });

  it('reads optional integer query parameters; garbage is a 400', () => {
    expect(queryInt('page')(input({}, ''))).toBeUndefined();
    expect(queryInt('page')(input({}, 'page=3'))).toBe(3);
    expect(queryInt('page')(input({}, 'page=-2'))).toBe(-2);
    for (const bad of ['page=x', 'page=1.5', 'page=1e3', 'page=99999999999']) {
      expect(statusOf(() => queryInt('page')(input({}, bad)))).toBe(400);
    }
  });

  it('gives required window bounds their own status (422)', () => {
    expect(requiredQueryInt('from', 'UNPROCESSABLE')(input({}, 'from=1700000000'))).toBe(1700000000);
    expect(statusOf(() => requiredQueryInt('from', 'UNPROCESSABLE')(input({}, '')))).toBe(422);
    expect(statusOf(() => requiredQueryInt('from', 'UNPROCESSABLE')(input({}, 'from=soon')))).toBe(422);
    expect(statusOf(() => requiredQueryInt('from', 'UNPROCESSABLE')(input({}, 'from=1.5')))).toBe(422);
  });
});

describe('path patterns', () => {
  it('matches segments and decodes parameters', () => {
    const p = compilePath('/:orgId/event/:eventId/bibs/:bib');
    expect(p.match('/1/event/2/bibs/A%2012')).toEqual({ orgId: '1', eventId: '2', bib: 'A 12' });
    expect(p.match('/1/event/2/bibs')).toBeNull();
    expect(p.match('/1/events/2/bibs/3')).toBeNull();
    expect(p.match('/1/event/2/bibs/%E0%A4%A')).toBeNull();
  });
});
