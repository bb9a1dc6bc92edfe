import { operatorEndpoint, readiness, ServiceMetrics } from './metrics';

describe('readiness and operator endpoints', () => {
  it('is ready only when every dependency answers, and says which one failed', async () => {
    const ok = { name: 'postgres', check: async () => 1 };
    const down = { name: 'redis', check: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const hung = { name: 's3', check: () => new Promise(() => undefined) };
    expect(await readiness([ok])).toEqual({ ready: true, checks: { postgres: 'ok' } });
    const result = await readiness([ok, down, hung]);
    expect(result.ready).toBe(false);
    expect(result.checks).toEqual({ postgres: 'ok', redis: 'connect ECONNREFUSED', s3: 'timed out after 2 s' });
  });

  it('answers 503 on /health/ready when not ready, 200 on /health/live, Prometheus text on /metrics', async () => {
    const metrics = new ServiceMetrics('unit');
    metrics.startRequest('GET /x')(200);
    const down = [{ name: 'redis', check: async () => Promise.reject(new Error('down')) }];
    expect((await operatorEndpoint('/health/ready', metrics, down))!.status).toBe(503);
    expect((await operatorEndpoint('/health/live', metrics, down))!.status).toBe(200);
    const text = (await operatorEndpoint('/metrics', metrics, down))!.body;
    expect(text).toMatch(/em_requests_total\{name="GET \/x",status="200",service="unit"\} 1/);
    expect(await operatorEndpoint('/other', metrics, down)).toBeNull();
  });
});
