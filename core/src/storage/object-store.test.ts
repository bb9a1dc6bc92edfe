import { ObjectStore } from './object-store';

const store = new ObjectStore({
  S3_ENDPOINT: 'http://127.0.0.1:1',
  S3_PUBLIC_ENDPOINT: undefined,
  S3_REGION: 'us-east-1',
  S3_ACCESS_KEY_ID: 'a',
  S3_SECRET_ACCESS_KEY: 'b',
  S3_BUCKET: 'bucket',
  S3_FORCE_PATH_STYLE: true,
  MEDIA_URL: 'https://media.test',
  DOWNLOAD_URL_TTL_SECONDS: 60,
});

describe('ObjectStore.publicUrl', () => {
  it('encodes each segment of the key as encodeURIComponent does, slashes kept', () => {
    const keys = [
      'public/7/large/IMG_0001.jpg',
      "a/b-c_d.e!f~g*h'(i)/j",
      'public/7/large/my photo #1?.jpg',
      'x/ü/%2F/a&b=c+d',
      'a//b/',
      '',
    ];
    for (const key of keys)
      expect(store.publicUrl(key)).toBe(`https://media.test/${key.split('/').map(encodeURIComponent).join('/')}`);
    expect(store.publicUrl('public/7/large/my photo #1?.jpg')).toBe(
      'https://media.test/public/7/large/my%20photo%20%231%3F.jpg',
    );
  });
});
