import { OPERATION_POLICY } from '@em/core';
import { PAGE_ROUTES, ROUTES, rootFieldOf } from './routes';

describe('routes', () => {
  it.each([...ROUTES, ...PAGE_ROUTES].map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s runs a root field of the operation policy',
    (_name, route) => {
      expect(Object.keys(OPERATION_POLICY)).toContain(rootFieldOf(route));
    },
  );

  it('reads the root field of an operation', () => {
    expect(rootFieldOf(ROUTES.find((r) => r.path.endsWith('/pipeline/photos/import'))!)).toBe('importPhotos');
  });

  it.each([...ROUTES, ...PAGE_ROUTES].map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s sends one named operation without fragments (what the gateway answers on its single-fetch path)',
    (_name, route) => {
      expect(route.operation).not.toMatch(/\bfragment\b|\.\.\./);
      expect(route.operation.trim()).toMatch(new RegExp(`^(query|mutation) ${route.operationName}\\b`));
      expect(route.operation.match(/\b(query|mutation)\s+\w+\s*[({]/g)).toHaveLength(1);
    },
  );

  it('reads the variables a request gives, typed for its operation, and checks what fills none', () => {
    const goLive = ROUTES.find((r) => r.path.endsWith('/go-live'))!;
    const input = { params: { orgId: '1', eventId: '2' }, query: new URLSearchParams() };
    expect(goLive.prepare({ ...input, body: undefined }).variables).toEqual({ orgId: 1, eventId: 2 });
    expect(() => goLive.prepare({ ...input, body: [] })).toThrow('The request body must be a JSON object');
    const downloads = ROUTES.find((r) => r.path.endsWith('/original-photos'))!;
    expect(downloads.prepare({ ...input, body: { method: '', identifier: 5 } }).variables).toEqual({
      orgId: 1,
      eventId: 2,
      method: '',
      identifier: 5,
    });
    expect(() => downloads.prepare({ ...input, body: { method: 5 } })).toThrow('method must be a string');
  });
});
