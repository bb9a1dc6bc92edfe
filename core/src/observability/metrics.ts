import type { Server } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one service (prom-client): process defaults, plus request counts and
 * latency by route or GraphQL operation and outcome. Served as text at `/metrics`.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requestSeconds: Histogram<'name' | 'status'>;
  readonly requests: Counter<'name' | 'status'>;
  readonly requestBodyBytes: Counter;

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    // The event-loop delay histogram samples every 100 ms, not prom-client's 10: an idle service woke 100 times a second.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.requestSeconds = new Histogram({
      name: 'em_request_duration_seconds',
      help: 'Request latency by REST route or GraphQL operation, and status',
      labelNames: ['name', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.requests = new Counter({
      name: 'em_requests_total',
      help: 'Requests by REST route or GraphQL operation, and status',
      labelNames: ['name', 'status'],
      registers: [this.registry],
    });
    this.requestBodyBytes = new Counter({
      name: 'em_request_body_bytes_total',
      help: 'Bytes of request bodies received, by their Content-Length (a chunked body is not counted)',
      registers: [this.registry],
    });
  }

  /** Counts the body bytes every request to this server declares (read from the header: the body is not touched). */
  countRequestBodies(server: Server): void {
    server.on('request', (req: { headers: Record<string, string | string[] | undefined> }) => {
      const length = Number(req.headers['content-length']);
      if (length > 0) this.requestBodyBytes.inc(length);
    });
  }

  /** Times one request: call the returned function with its status when it ends. */
  startRequest(name: string): (status: string | number) => void {
    const end = this.requestSeconds.startTimer({ name });
    return (status) => {
      end({ status: String(status) });
      this.requests.inc({ name, status: String(status) });
    };
  }

  contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** A dependency a service needs to serve: readiness fails while any check fails. */
export interface DependencyCheck {
  name: string;
  check(): Promise<unknown>;
}

export interface Readiness {
  ready: boolean;
  /** 'ok', or what is wrong. */
  checks: Record<string, string>;
}

/** Runs the checks (each bounded to 2 s): ready when all pass; failures say why. */
export async function readiness(checks: DependencyCheck[]): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await Promise.race([
          c.check(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2 s')), 2000).unref()),
        ]);
        return [c.name, 'ok'] as const;
      } catch (err) {
        return [c.name, (err as Error).message.slice(0, 200) || 'failed'] as const;
      }
    }),
  );
  return { ready: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
}

export interface PlainResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * The operator endpoints every service answers, whatever its HTTP stack: `/metrics` (Prometheus
 * text), `/health/live` (the process runs) and `/health/ready` (its dependencies answer; 503 when
 * not). Null for any other path.
 */
export async function operatorEndpoint(
  pathname: string,
  metrics: ServiceMetrics,
  checks: DependencyCheck[],
): Promise<PlainResponse | null> {
  if (pathname === '/metrics') return { status: 200, contentType: metrics.contentType(), body: await metrics.text() };
  if (pathname === '/health/live' || pathname === '/health') {
    return {
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ status: 'ok', service: metrics.service }),
    };
  }
  if (pathname === '/health/ready') {
    const result = await readiness(checks);
    return {
      status: result.ready ? 200 : 503,
      contentType: 'application/json',
      body: JSON.stringify({
        status: result.ready ? 'ready' : 'not ready',
        service: metrics.service,
        checks: result.checks,
      }),
    };
  }
  return null;
}
