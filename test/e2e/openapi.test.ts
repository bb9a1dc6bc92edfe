import { API, expectSuccess, api, info } from './support/platform';
import { OpenApiContract } from './support/openapi';

const SPEC_ROUTES = [
  'GET /api/v1/ext/{org_id}/events',
  'GET /api/v1/ext/{org_id}/event/{event_id}/details',
  'GET /api/v1/ext/{org_id}/event/{event_id}/ping',
  'GET /api/v1/ext/account',
  'GET /api/v1/ext/{org_id}/event/{event_id}/images',
  'GET /api/v1/ext/{org_id}/event/{event_id}/images/{image_id}',
  'GET /api/v1/ext/{org_id}/event/{event_id}/bibs/{bib}',
  'POST /api/v1/ext/{org_id}/event/{event_id}/faces',
  'GET /api/v1/ext/{org_id}/event/{event_id}/faces/{request_id}',
  'GET /api/v1/ext/{org_id}/event/{event_id}/timeline/days',
  'GET /api/v1/ext/{org_id}/event/{event_id}/timeline/images',
  'POST /api/v1/ext/{org_id}/event/{event_id}/video-clipping/search-by-selfie',
  'GET /api/v1/ext/{org_id}/event/{event_id}/video-clipping/{request_id}',
  'POST /api/v1/ext/{org_id}/event/{event_id}/original-photos',
  'GET /api/v1/ext/{org_id}/event/{event_id}/pipeline/photos/status',
  'POST /api/v1/ext/{org_id}/event/{event_id}/pipeline/photos/import',
  'POST /api/v1/ext/{org_id}/event/{event_id}/pipeline/photos/process',
  'POST /api/v1/ext/{org_id}/event/{event_id}/pipeline/photos/go-live',
];

describe('the OpenAPI document and the docs page', () => {
  let doc: any;
  beforeAll(async () => {
    doc = await (await fetch(`${info.restUrl}/openapi.json`)).json();
  });

  it('documents the 18 routes of the spec, with their parameters, bodies and error statuses', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries<any>(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual([...SPEC_ROUTES].sort());
    const faces = doc.paths['/api/v1/ext/{org_id}/event/{event_id}/faces'].post;
    expect(faces.parameters.map((p: any) => p.name)).toEqual(['org_id', 'event_id', 'page', 'page_size']);
    expect(Object.keys(faces.requestBody.content['multipart/form-data'].schema.properties)).toEqual([
      'file',
      'request_id',
    ]);
    expect(Object.keys(faces.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '413', '429']),
    );
    // A request_id of another event is no conflict: it names a fresh search there.
    expect(faces.responses['409']).toBeUndefined();
    // Face matching that does not answer is the spec's face-search 500 row: nothing recorded, retry with the same request_id.
    const clippingStart = doc.paths['/api/v1/ext/{org_id}/event/{event_id}/video-clipping/search-by-selfie'].post;
    for (const selfieRoute of [faces, clippingStart]) {
      expect(selfieRoute.responses['500'].description).toMatch(/nothing was recorded; retry with the same request_id/);
      expect(selfieRoute.responses['500'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorEnvelope',
      });
    }
    expect(doc.paths['/api/v1/ext/{org_id}/event/{event_id}/faces/{request_id}'].get.responses['500']).toEqual({
      $ref: '#/components/responses/Error500',
    });
    const timeline = doc.paths['/api/v1/ext/{org_id}/event/{event_id}/timeline/images'].get;
    expect(timeline.parameters.filter((p: any) => p.required).map((p: any) => p.name)).toEqual([
      'org_id',
      'event_id',
      'from',
      'to',
    ]);
    expect(timeline.responses['422']).toBeDefined();
    const downloads = doc.paths['/api/v1/ext/{org_id}/event/{event_id}/original-photos'].post;
    expect(Object.keys(downloads.requestBody.content['application/json'].schema.properties)).toEqual([
      'method',
      'identifier',
    ]);
  });

  it('serves a browsable page with its assets from this server', async () => {
    const page = await fetch(`${info.restUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // The page's script is a file of its own (the CSP allows no inline script): it names the document.
    expect(html).toContain('/docs/start.js');
    expect(await (await fetch(`${info.restUrl}/docs/start.js`)).text()).toContain('/openapi.json');
    for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']) {
      expect(html).toContain(asset);
      const res = await fetch(`${info.restUrl}${asset}`);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    }
  });

  it('the contract check refuses what the document does not say', async () => {
    const contract = new OpenApiContract(doc);
    const path = new URL(`${API}/1/event/1/images`).pathname;
    const good = expectSuccess(await api(`/${info.demo.orgId}/event/${info.demo.eventId}/images?page_size=1`));
    expect(() =>
      contract.check('GET', path, 200, { responseType: 'success', message: 'ok', data: good }),
    ).not.toThrow();
    expect(() =>
      contract.check('GET', path, 200, { responseType: 'success', message: 'ok', data: { images: good.images } }),
    ).toThrow(/pagination/);
    expect(() =>
      contract.check('GET', path, 200, {
        responseType: 'success',
        message: 'ok',
        data: { ...good, images: [{ ...good.images[0], original_url: 'http://x' }] },
      }),
    ).toThrow(/does not match/);
    expect(() => contract.check('GET', path, 418, { responseType: 'error', message: 'teapot', data: null })).toThrow(
      /does not document status 418/,
    );
    expect(() => contract.check('GET', path, 404, { responseType: 'error', message: 'x', data: {} })).toThrow(
      /does not match/,
    );
  });
});
