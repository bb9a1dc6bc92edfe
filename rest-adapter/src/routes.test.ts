import { OPERATION_POLICY } from '@em/core';
import { PAGE_ROUTES, ROUTES, rootFieldOf } from './routes';

describe('routes', () => {
  it.each([...ROUTES, ...PAGE_ROUTES].map((r) => [`${r.method} ${r.path}`, r] as const))('%s runs a root field of the operation policy', (_name, route) => {
    expect(Object.keys(OPERATION_POLICY)).toContain(rootFieldOf(route));
  });

  it('reads the root field of an operation', () => {
    expect(rootFieldOf(ROUTES.find((r) => r.path.endsWith('/pipeline/photos/import'))!)).toBe('importPhotos');
  });
});
