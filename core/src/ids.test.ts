import { parseRequestId, requireRequestId } from './ids';

describe('the request_id parser', () => {
  it('reads a UUID with surrounding spaces in the lower case it is stored in', () => {
    expect(parseRequestId(' 9F1C2B3A-1111-4222-8333-444455556666 ')).toBe('9f1c2b3a-1111-4222-8333-444455556666');
  });

  it('refuses anything else: null from parse, 400 with the caller’s message from require', () => {
    for (const value of ['', 'not-a-uuid', 42, null, undefined, '9f1c2b3a-1111-4222-8333-44445555666'])
      expect(parseRequestId(value)).toBeNull();
    expect(() => requireRequestId('x')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: 'request_id must be a UUID' }),
    );
    expect(() => requireRequestId('x', 'identifier must be a request_id')).toThrow('identifier must be a request_id');
  });
});
