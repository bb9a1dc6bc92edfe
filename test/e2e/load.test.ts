import { readFileSync } from 'node:fs';
import { closeDb, fixtures, info, postForm } from './support/platform';

// autocannon ships no types: the part used here.
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<LoadResult>;

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const CONNECTIONS = 100;
/** Resident memory a service may reach under this load, MB (the ml-worker holds the OCR, person and face models on 2 photo threads). */
const MEMORY_BUDGET_MB: Record<string, number> = {
  rest: 384,
  gateway: 512,
  events: 384,
  images: 512,
  search: 512,
  media: 384,
  mlWorker: 3584,
};
const ports: Record<string, number> = JSON.parse(process.env.E2E_PORTS!);

async function residentMemory(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, port] of Object.entries(ports)) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    out[name] = Number(/process_resident_memory_bytes\{[^}]*\} (\d+)/.exec(text)![1]) / 1024 / 1024;
  }
  return out;
}

describe('load: mixed reads at 100 concurrent clients with face searches beside them', () => {
  afterAll(closeDb);

  it(
    `${SECONDS} s: no error but documented 429s, every service up, memory stable`,
    async () => {
      const { orgId } = await fixtures.organisation();
      const key = await fixtures.apiKey(orgId, { rateLimit: 100_000_000 });
      const eventId = await fixtures.event(orgId);
      const start = Date.parse('2026-06-07T08:00:00Z');
      const ids = await fixtures.photos(
        eventId,
        Array.from({ length: 400 }, (_, i) => ({
          capturedAt: new Date(start + i * 20_000),
          bibs: [String(100 + (i % 50))],
        })),
      );
      const base = `/api/v1/ext/${orgId}/event/${eventId}`;
      const from = start / 1000;
      const paths = [
        `/api/v1/ext/${orgId}/events`,
        `${base}/details`,
        `${base}/ping`,
        ...Array.from({ length: 13 }, (_, i) => `${base}/images?page_size=32&page=${i + 1}`),
        ...ids.slice(0, 10).map((id) => `${base}/images/${id}`),
        ...Array.from({ length: 10 }, (_, i) => `${base}/bibs/${100 + i * 3}`),
        `${base}/timeline/days`,
        ...Array.from(
          { length: 8 },
          (_, i) => `${base}/timeline/images?from=${from + i * 900}&to=${from + (i + 1) * 900}`,
        ),
      ];

      // Face searches on the demo event beside the reads: the stricter matching limit answers 429 past its budget.
      const selfie = readFileSync(`${info.env.DATA_DIR}/demo-selfie.jpg`);
      const faceStatuses: number[] = [];
      let loading = true;
      const searches = (async () => {
        while (loading) {
          const res = await postForm(`/${info.demo.orgId}/event/${info.demo.eventId}/faces`, info.demo.apiKey, selfie);
          faceStatuses.push(res.status);
          if (res.status === 200) expect(res.body.data.images.length).toBeGreaterThan(0);
          await new Promise((r) => setTimeout(r, 300));
        }
      })();

      // Resident memory of every service every 5 s: the last third of the run is held against the middle third.
      const samples: Array<Record<string, number>> = [];
      const sampler = setInterval(() => void residentMemory().then((m) => samples.push(m)), 5000);
      const result = await autocannon({
        url: info.restUrl,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { 'x-api-key': key },
        requests: paths.map((path) => ({ method: 'GET', path })),
      });
      loading = false;
      await searches;
      clearInterval(sampler);
      samples.push(await residentMemory());
      // RSS grows in steps while V8 sizes its heaps to the load, then swings with garbage collection
      // (the gateway at ~300 reads/s: up to ~370 MB within a minute, then no higher over 240 s). So
      // each service is held to a memory budget, and a fast leak shows as the last third's peak
      // doubling the middle third's; a slow one needs a longer run (LOAD_SECONDS).
      const third = Math.floor(samples.length / 3);
      const [middleThird, lastThird] = [samples.slice(third, 2 * third), samples.slice(2 * third)];
      const peak = (part: Array<Record<string, number>>, name: string) => Math.max(...part.map((m) => m[name]));
      const end = samples[samples.length - 1];

      const statuses = Object.keys(result.statusCodeStats).sort();
      const series = Object.fromEntries(
        Object.keys(end).map((name) => [name, samples.map((m) => Math.round(m[name])).join(' ')]),
      );
      // The figures of the run, for whoever reads the log.
      console.log(
        `load: ${result.requests.total} reads in ${SECONDS} s (${result.requests.average.toFixed(0)}/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms), statuses ${JSON.stringify(result.statusCodeStats)}; ` +
          `face searches ${faceStatuses.length} (${faceStatuses.filter((s) => s === 429).length} answered 429); RSS every 5 s (MB) ${JSON.stringify(series)}`,
      );
      expect({ errors: result.errors, timeouts: result.timeouts, statuses }).toEqual({
        errors: 0,
        timeouts: 0,
        statuses: ['200'],
      });
      expect(result.requests.total).toBeGreaterThan(SECONDS * 50);
      expect(faceStatuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      expect(faceStatuses.filter((s) => s === 200).length).toBeGreaterThan(0);
      for (const name of Object.keys(end)) {
        const [middlePeak, lastPeak] = [peak(middleThird, name), peak(lastThird, name)];
        expect({ name, stableInLastThird: lastPeak - middlePeak < 32 + middlePeak }).toEqual({
          name,
          stableInLastThird: true,
        });
        expect({ name, withinBudget: lastPeak < MEMORY_BUDGET_MB[name] }).toEqual({ name, withinBudget: true });
      }
      for (const port of Object.values(ports))
        expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    },
    (SECONDS + 120) * 1000,
  );
});
