import http from 'node:http';
import { cfg, closeDb, info, sql, store } from '../support/platform';

/** A GET/HEAD sent with the path exactly as written (fetch's URL parser would resolve `..` first). */
function rawRequest(pathAndQuery: string, method = 'GET'): Promise<{ status: number; body: Buffer }> {
  const s3 = new URL(cfg.S3_ENDPOINT);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: s3.hostname, port: s3.port, method, path: pathAndQuery }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every way we know of to climb out of `public/` to `target`, as raw request paths. */
function escapes(bucket: string, eventId: number, target: string): Record<string, string> {
  const pub = `/${bucket}/public`;
  const chain = `/${bucket}/public/${eventId}/large`;
  return {
    'single %2e%2e': `${pub}/%2e%2e/${target}`,
    'double %252e%252e': `${pub}/%252e%252e/${target}`,
    'triple %25252e%25252e': `${pub}/%25252e%25252e/${target}`,
    'mixed case %2E%2e': `${pub}/%2E%2e/${target}`,
    '..%2f': `${pub}/..%2f${target}`,
    '%2e%2e%2f': `${pub}/%2e%2e%2f${target}`,
    '%2e%2e%2F upper': `${pub}/%2e%2e%2F${target}`,
    'double %252e%252e%252f': `${pub}/%252e%252e%252f${target}`,
    '..%5c': `${pub}/..%5c${target}`,
    '%2e%2e%5c': `${pub}/%2e%2e%5c${target}`,
    'raw ..\\': `${pub}/..\\${target}`,
    'raw ../': `${pub}/../${target}`,
    'encoded NUL': `${pub}/%2e%2e/${target}%00`,
    'encoded NUL segment': `${pub}/%00/%2e%2e/%2e%2e/${target}`,
    'chain %2e%2e under public/<event>/large': `${chain}/%2e%2e/%2e%2e/%2e%2e/${target}`,
    'chain ..%2f under public/<event>/large': `${chain}/..%2f..%2f..%2f${target}`,
    'chain raw ../ under public/<event>/large': `${chain}/../../../${target}`,
    'chain double-encoded under public/<event>/large': `${chain}/%252e%252e/%252e%252e/%252e%252e/${target}`,
    'single dot then %2e%2e': `${pub}/./%2e%2e/${target}`,
    'encoded slash after bucket': `/${bucket}%2fpublic%2f..%2f${target}`,
  };
}

describe('#1 media host: no way out of public/ without a signature', () => {
  const bucket = cfg.S3_BUCKET;
  const eventId = info.demo.eventId;
  const targets: Record<string, { key: string; bytes: Buffer }> = {};
  let preview: string;

  beforeAll(async () => {
    const [photo] = await sql(
      'select original_key, large_key from photos where event_id = $1 and large_key is not null order by id limit 1',
      [eventId],
    );
    const [video] = await sql('select storage_key from videos where event_id = $1 order by id limit 1', [eventId]);
    const inboxKey = `inbox/${eventId}/media-host-probe.jpg`;
    await store.put(inboxKey, Buffer.from('inbox object: organisers only'), 'image/jpeg');
    for (const [name, key] of Object.entries({
      original: photo.original_key,
      video: video.storage_key,
      inbox: inboxKey,
    })) {
      targets[name] = { key, bytes: await store.getBuffer(key) };
    }
    preview = photo.large_key;
  });
  afterAll(async () => {
    await store.delete(`inbox/${eventId}/media-host-probe.jpg`);
    await closeDb();
  });

  it('#1 media host: a public preview is still served anonymously', async () => {
    const res = await rawRequest(`/${bucket}/${preview}`);
    expect(res.status).toBe(200);
    expect(res.body.equals(await store.getBuffer(preview))).toBe(true);
    expect((await rawRequest(`/${bucket}/${preview}`, 'HEAD')).status).toBe(200);
  });

  it('#1 media host: the private objects are refused without a signature', async () => {
    for (const { key } of Object.values(targets)) expect((await rawRequest(`/${bucket}/${key}`)).status).toBe(403);
  });

  for (const target of ['original', 'video', 'inbox']) {
    it(`#1 media host: no encoding of .. under public/ reaches the ${target}`, async () => {
      const { key, bytes } = targets[target];
      const answers: Record<string, number> = {};
      for (const [variant, path] of Object.entries(escapes(bucket, eventId, key))) {
        for (const method of ['GET', 'HEAD']) {
          const res = await rawRequest(path, method);
          if (method === 'GET' && res.body.equals(bytes)) answers[`${variant} (${method})`] = -res.status;
          else answers[`${variant} (${method})`] = [400, 403, 404].includes(res.status) ? 0 : res.status;
        }
      }
      // Every variant answers 400/403/404 (0 here); a leak shows as the variant's name with its status.
      expect(Object.entries(answers).filter(([, status]) => status !== 0)).toEqual([]);
    });
  }

  it('#1 media host: signed requests cannot use dot segments either', async () => {
    const { key, bytes } = targets.original;
    await expect(store.getBuffer(`public/../${key}`)).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    await expect(
      store.put(`public/../../escaped-${Date.now()}.txt`, Buffer.from('x'), 'text/plain'),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect((await store.getBuffer(key)).equals(bytes)).toBe(true);
  });
});
