import { ChildProcess } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { BACKGROUND_POLL_MS, ServiceDef, waitForHealth } from './services';

describe('waiting for a background service to be ready', () => {
  let server: Server;
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('asks a loading ml-worker about once a second, not several times a second', async () => {
    const readyAt = Date.now() + 3000;
    let asked = 0;
    server = createServer((req, res) => {
      asked++;
      res.statusCode = req.url === '/health/ready' && Date.now() >= readyAt ? 200 : 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const service = { def: { name: 'ml-worker' } as ServiceDef, child: { exitCode: null } as ChildProcess };
    await waitForHealth(service, port, 30_000, '/health/ready', BACKGROUND_POLL_MS);
    expect(Date.now()).toBeGreaterThanOrEqual(readyAt);
    // Three seconds of loading: four answers at most (the last one ready), where every 150 ms made about twenty.
    expect(asked).toBeLessThanOrEqual(5);
  });
});
