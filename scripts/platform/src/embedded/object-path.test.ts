import { decodeFully, isPublicRead, parseObjectPath } from './object-path';

const B = 'event-media';
const publicRead = (method: string, pathname: string, query: string[] = []) =>
  isPublicRead(method, parseObjectPath(pathname), query, B, 'public/');

describe('object paths of the embedded S3 front', () => {
  it('decodes until stable, whatever the depth or case', () => {
    expect(decodeFully('%2e%2e')).toBe('..');
    expect(decodeFully('%252e%252E')).toBe('..');
    expect(decodeFully('%25252e')).toBe('.');
    expect(decodeFully('100%')).toBe('100%');
    expect(decodeFully('%zz%2')).toBe('%zz%2');
  });

  it.each([
    '/event-media/public/../originals/1/a.jpg',
    '/event-media/public/%2e%2e/originals/1/a.jpg',
    '/event-media/public/%2E%2e/originals/1/a.jpg',
    '/event-media/public/%252e%252e/originals/1/a.jpg',
    '/event-media/public/..%2foriginals/1/a.jpg',
    '/event-media/public/%2e%2e%2Foriginals/1/a.jpg',
    '/event-media/public/1/large/%2e%2e/%2e%2e/%2e%2e/videos/1/v.mp4',
    '/event-media/public/..%5cinbox/1/x.jpg',
    '/event-media/public/..\\inbox/1/x.jpg',
    '/event-media/public/a.jpg%00',
    '/event-media/public/./a.jpg',
    '/event-media/public/%2e/a.jpg',
    '/%2e%2e/secrets.json',
    '/event-media%2fpublic/a.jpg',
  ])('refuses %s', (pathname) => {
    expect(parseObjectPath(pathname)).toMatchObject({ ok: false });
    expect(publicRead('GET', pathname)).toBe(false);
  });

  it('reads bucket and key as the store does', () => {
    expect(parseObjectPath('/event-media/public/1/large/a%20b.jpg')).toEqual({
      ok: true,
      bucket: B,
      key: 'public/1/large/a b.jpg',
    });
    expect(parseObjectPath('/event-media')).toEqual({ ok: true, bucket: B, key: '' });
    expect(parseObjectPath('/event-media/inbox/1/..jpg')).toEqual({ ok: true, bucket: B, key: 'inbox/1/..jpg' });
  });

  it('serves anonymously only GET/HEAD of objects under public/', () => {
    expect(publicRead('GET', '/event-media/public/1/large/a.jpg')).toBe(true);
    expect(publicRead('HEAD', '/event-media/%70ublic/1/large/a.jpg')).toBe(true);
    expect(publicRead('PUT', '/event-media/public/1/large/a.jpg')).toBe(false);
    expect(publicRead('DELETE', '/event-media/public/1/large/a.jpg')).toBe(false);
    expect(publicRead('GET', '/event-media/originals/1/a.jpg')).toBe(false);
    expect(publicRead('GET', '/event-media/%2570ublic/1/a.jpg')).toBe(false); // the store reads key "%70ublic/..."
    expect(publicRead('GET', '/other-bucket/public/1/a.jpg')).toBe(false);
    expect(publicRead('GET', '/event-media/public/')).toBe(false);
    expect(publicRead('GET', '/event-media')).toBe(false);
    expect(publicRead('GET', '/event-media/public/1/a.jpg', ['acl'])).toBe(false);
    expect(publicRead('GET', '/event-media/public/1/a.jpg', ['response-content-type'])).toBe(false);
  });
});
