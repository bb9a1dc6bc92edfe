import { jobIdOf, JobQueues } from '@em/core/jobs';
import sharp from 'sharp';
import { api, cfg, closeDb, expectSuccess, fixtures, info } from './support/platform';

const ports: Record<string, number> = JSON.parse(process.env.E2E_PORTS!);

describe('operator endpoints: liveness, readiness, Prometheus metrics', () => {
  afterAll(closeDb);
  const services = ['rest', 'gateway', 'events', 'images', 'search', 'media', 'mlWorker'];

  it.each(services)('%s answers /health/live and /health/ready with its dependency checks', async (service) => {
    const live = await fetch(`http://127.0.0.1:${ports[service]}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${ports[service]}/health/ready`);
    const body = await ready.json();
    expect(ready.status).toBe(200);
    expect(body.status).toBe('ready');
    expect(Object.keys(body.checks).length).toBeGreaterThanOrEqual(1);
    for (const result of Object.values(body.checks)) expect(result).toBe('ok');
  });

  it('request counts and latency per REST route and per GraphQL operation', async () => {
    expectSuccess(await api(`/${info.demo.orgId}/event/${info.demo.eventId}/details`));
    const rest = await (await fetch(`http://127.0.0.1:${ports.rest}/metrics`)).text();
    expect(rest).toMatch(
      /em_request_duration_seconds_count\{[^}]*name="GET \/:orgId\/event\/:eventId\/details"[^}]*status="200"[^}]*\} [1-9]/,
    );
    const gateway = await (await fetch(`http://127.0.0.1:${ports.gateway}/metrics`)).text();
    // GraphQL operations are labelled by their first root field, never by the client-chosen operation name.
    expect(gateway).toMatch(/em_requests_total\{[^}]*name="event"[^}]*status="ok"/);
    const events = await (await fetch(`http://127.0.0.1:${ports.events}/metrics`)).text();
    expect(events).toMatch(/em_requests_total\{[^}]*name="event"/);
    expect(events).toContain('process_resident_memory_bytes');
  });

  it('the ml-worker reports queue depths and job durations', async () => {
    const text = await (await fetch(`http://127.0.0.1:${ports.mlWorker}/metrics`)).text();
    for (const queue of ['photo-processing', 'selfie-embedding', 'video-indexing', 'video-clipping']) {
      expect(text).toMatch(new RegExp(`em_queue_jobs\\{[^}]*queue="${queue}"[^}]*state="waiting"`));
    }
    expect(text).toContain('em_job_duration_seconds');
  });
});

describe('one request id from the REST call into the worker job', () => {
  afterAll(closeDb);

  it('x-request-id is echoed, and the photo jobs the call queued carry it', async () => {
    const { orgId, key } = await fixtures.organisation();
    const eventId = await fixtures.event(orgId);
    const base = `/${orgId}/event/${eventId}`;
    const form = new FormData();
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    form.append('files', new Blob([photo], { type: 'image/jpeg' }), 'trace.jpg');
    const imported = expectSuccess(await api(`${base}/pipeline/photos/import`, { key, method: 'POST', body: form }));
    const requestId = `trace-${Date.now()}`;
    const processed = await api(`${base}/pipeline/photos/process`, {
      key,
      method: 'POST',
      headers: { 'x-request-id': requestId },
    });
    expectSuccess(processed);
    expect(processed.headers.get('x-request-id')).toBe(requestId);
    const jobs = new JobQueues(cfg.REDIS_URL);
    try {
      const job = await jobs.queue('photos').getJob(jobIdOf('photos', { photoId: imported.files[0].image_id })!);
      expect(job?.data).toEqual({ photoId: imported.files[0].image_id, httpRequestId: requestId });
    } finally {
      await jobs.close();
    }
  });
});
