import http from 'node:http';
import { DependencyCheck, operatorEndpoint, ServiceMetrics } from './metrics';

/**
 * An HTTP server of the operator endpoints only (/metrics, /health/*) on its own port, on the
 * internal interface: the REST adapter's (whose main port is public) and the ml-worker's (its only HTTP).
 */
export function serveOperatorPort(opts: {
  port: number;
  host: string;
  metrics: ServiceMetrics;
  checks: DependencyCheck[];
}): http.Server {
  const server = http.createServer((req, res) => {
    operatorEndpoint(req.url?.split('?')[0] ?? '/', opts.metrics, opts.checks).then(
      (answer) => {
        if (!answer) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        res.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body);
      },
      () => void res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error'),
    );
  });
  server.listen(opts.port, opts.host);
  return server;
}
