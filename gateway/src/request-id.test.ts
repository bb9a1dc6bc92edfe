import { requestIdFrom } from './request-id';

describe('requestIdFrom', () => {
  it('keeps a bounded token and replaces anything else', () => {
    expect(requestIdFrom('rest-1234:abc.def_9')).toBe('rest-1234:abc.def_9');
    for (const bad of [undefined, '', 'a'.repeat(129), 'line\nbreak', 'spa ce', '{"json":1}', 'é']) {
      const id = requestIdFrom(bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[\w.:-]{1,128}$/);
    }
  });
});
