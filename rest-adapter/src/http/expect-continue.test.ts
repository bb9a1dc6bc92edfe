import http from 'node:http';
import { AddressInfo } from 'node:net';
import { continueOnlyWithCredentials } from './expect-continue';

/** A request with `Expect: 100-continue` that never sends its body: did a 100 come, and what answer? */
function expectContinue(
  port: number,
  headers: Record<string, string>,
): Promise<{ continued: boolean; status: number }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = http.request({
      port,
      method: 'POST',
      path: '/api/v1/ext/1/event/1/pipeline/photos/import',
      headers: { expect: '100-continue', 'content-length': '1000', ...headers },
    });
    req.on('continue', () => {
      continued = true;
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ continued, status: res.statusCode! });
      req.destroy();
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('continueOnlyWithCredentials', () => {
  const handler: http.RequestListener = (req, res) => {
    if (!req.headers['x-api-key']) return void res.writeHead(401).end();
    // Stands for the adapter reading the body after the caller is authorised.
    setTimeout(() => res.writeHead(200).end(), 50);
  };
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer(handler);
    server.on('checkContinue', continueOnlyWithCredentials(handler));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers 401 to a request without credentials, with no 100 Continue before it', async () => {
    expect(await expectContinue(port, {})).toEqual({ continued: false, status: 401 });
  });

  it('invites a request with credentials to send its body', async () => {
    expect(await expectContinue(port, { 'x-api-key': 'emk_test' })).toEqual({ continued: true, status: 200 });
  });
});
