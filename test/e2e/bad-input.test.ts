import fc from 'fast-check';
import { API, closeDb, fixtures } from './support/platform';

const ports: Record<string, number> = JSON.parse(process.env.E2E_PORTS!);

/** The route shapes of the spec, with holes for generated path segments. */
const ROUTES: Array<[method: string, template: string]> = [
  ['GET', '/{org}/events'],
  ['GET', '/{org}/event/{event}/details'],
  ['GET', '/{org}/event/{event}/ping'],
  ['GET', '/account'],
  ['GET', '/{org}/event/{event}/images'],
  ['GET', '/{org}/event/{event}/images/{x}'],
  ['GET', '/{org}/event/{event}/bibs/{x}'],
  ['POST', '/{org}/event/{event}/faces'],
  ['GET', '/{org}/event/{event}/faces/{x}'],
  ['GET', '/{org}/event/{event}/timeline/days'],
  ['GET', '/{org}/event/{event}/timeline/images'],
  ['POST', '/{org}/event/{event}/video-clipping/search-by-selfie'],
  ['GET', '/{org}/event/{event}/video-clipping/{x}'],
  ['POST', '/{org}/event/{event}/original-photos'],
  ['GET', '/{org}/event/{event}/pipeline/photos/status'],
  ['POST', '/{org}/event/{event}/pipeline/photos/import'],
  ['POST', '/{org}/event/{event}/pipeline/photos/process'],
  ['POST', '/{org}/event/{event}/pipeline/photos/go-live'],
];

const segment = fc.oneof(
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '1.5',
    '99999999999',
    'abc',
    '%00',
    '%E0%A4%A',
    '..',
    '%2F',
    ' ',
    'null',
    '[]',
    '{}',
    "';drop table photos;--",
  ),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.uuid(),
  fc.integer().map(String),
);
const query = fc.dictionary(
  fc.constantFrom('page', 'page_size', 'from', 'to', 'force_recreate', 'x', 'page[]'),
  fc.oneof(
    fc.constantFrom('', '0', '-5', '1e9', 'NaN', 'true', '99999999999999999999'),
    fc.integer().map(String),
    fc.string({ maxLength: 20 }),
  ),
  { maxKeys: 4 },
);
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({
    method: fc.oneof(fc.constantFrom('bib', 'selfie', 'image_id', 'image_ids'), fc.jsonValue({ maxDepth: 1 })),
    identifier: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({
    keys: fc.jsonValue({ maxDepth: 2 }),
    retry_failed: fc.jsonValue({ maxDepth: 1 }),
    request_id: fc.jsonValue({ maxDepth: 1 }),
  }),
);
const body = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  jsonValue.map((value) => ({ kind: 'json' as const, text: JSON.stringify(value) })),
  fc.string({ maxLength: 200 }).map((text) => ({ kind: 'raw' as const, text, type: 'application/json' })),
  fc
    .uint8Array({ maxLength: 2000 })
    .map((bytes) => ({ kind: 'bytes' as const, bytes, type: 'application/octet-stream' })),
  fc
    .record({
      fields: fc.dictionary(
        fc.constantFrom('request_id', 'force_recreate', 'photographer_name', 'keys', 'x'),
        fc.string({ maxLength: 60 }),
        { maxKeys: 3 },
      ),
      files: fc.array(
        fc.record({
          field: fc.constantFrom('file', 'files', 'other'),
          bytes: fc.uint8Array({ maxLength: 3000 }),
          name: fc.string({ maxLength: 30 }),
        }),
        { maxLength: 3 },
      ),
    })
    .map((form) => ({ kind: 'multipart' as const, ...form })),
  fc.string({ maxLength: 100 }).map((text) => ({ kind: 'raw' as const, text, type: 'multipart/form-data' })),
);
const credentials = fc.constantFrom('valid', 'none', 'garbage', 'bearer-garbage', 'both');

describe('bad input: generated malformed requests across every route', () => {
  let key: string;
  let orgId: number;
  let eventId: number;

  beforeAll(async () => {
    ({ orgId, key } = await fixtures.organisation());
    eventId = await fixtures.event(orgId, { videoSearch: true, videoSelfieClipping: true });
  });
  afterAll(closeDb);

  it('never a 5xx, always the envelope, data null on errors, no process down', async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        fc.boolean(),
        segment,
        segment,
        segment,
        fc.boolean(),
        query,
        body,
        credentials,
        async (route, otherMethod, useOtherMethod, orgSeg, eventSeg, xSeg, realIds, q, b, cred) => {
          const [routeMethod, template] = route;
          const method = useOtherMethod ? otherMethod : routeMethod;
          const path = template
            .replace('{org}', realIds ? String(orgId) : orgSeg)
            .replace('{event}', realIds ? String(eventId) : eventSeg)
            .replace('{x}', xSeg);
          const search = new URLSearchParams(q).toString();
          const headers: Record<string, string> = {};
          if (cred === 'valid' || cred === 'both') headers['x-api-key'] = key;
          if (cred === 'garbage') headers['x-api-key'] = 'emk_not-a-real-key';
          if (cred === 'bearer-garbage' || cred === 'both') headers.authorization = 'Bearer abc.def.ghi';
          let payload: string | Uint8Array<ArrayBuffer> | FormData | undefined;
          if (method !== 'GET' && b.kind === 'json') {
            headers['content-type'] = 'application/json';
            payload = b.text;
          } else if (method !== 'GET' && (b.kind === 'raw' || b.kind === 'bytes')) {
            headers['content-type'] = b.type;
            payload = b.kind === 'raw' ? b.text : new Uint8Array(b.bytes);
          } else if (method !== 'GET' && b.kind === 'multipart') {
            const form = new FormData();
            for (const [name, value] of Object.entries(b.fields)) form.append(name, value);
            for (const f of b.files) form.append(f.field, new Blob([Buffer.from(f.bytes)]), f.name || 'x');
            payload = form;
          }
          const res = await fetch(`${API}${path}${search ? `?${search}` : ''}`, { method, headers, body: payload });
          requests++;
          const text = await res.text();
          expect(res.status).toBeLessThan(500);
          const json = JSON.parse(text);
          expect(['success', 'error']).toContain(json.responseType);
          expect(typeof json.message).toBe('string');
          if (res.status >= 400)
            expect({ status: res.status, responseType: json.responseType, data: json.data }).toEqual({
              status: res.status,
              responseType: 'error',
              data: null,
            });
        },
      ),
      { numRuns: 3000, seed: Number(process.env.FUZZ_SEED ?? 20261122) },
    );
    expect(requests).toBe(3000);
    for (const port of Object.values(ports))
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
  }, 300_000);

  it('huge and empty inputs: a long path, a long query, a body over the limit, an empty multipart', async () => {
    const base = `${API}/${orgId}/event/${eventId}`;
    const check = async (res: Response) => {
      expect(res.status).toBeLessThan(500);
      expect(((await res.json()) as { responseType?: string }).responseType).toBeDefined();
    };
    await check(await fetch(`${base}/bibs/${'9'.repeat(6000)}`, { headers: { 'x-api-key': key } }));
    await check(await fetch(`${base}/images?${'x=1&'.repeat(2000)}`, { headers: { 'x-api-key': key } }));
    await check(
      await fetch(`${base}/original-photos`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: `{"method":"bib","identifier":"${'1'.repeat(3 * 1024 * 1024)}"}`,
      }),
    );
    await check(
      await fetch(`${base}/faces`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=x' },
        body: '--x--\r\n',
      }),
    );
    await check(await fetch(`${base}/faces`, { method: 'POST', headers: { 'x-api-key': key }, body: new FormData() }));
  });
});
