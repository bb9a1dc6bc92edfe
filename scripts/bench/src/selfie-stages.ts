import { BenchRow } from './table';

/** One search as the client timed it, with the search subgraph's own stage timing (its log line). */
export interface TimedSearch {
  ms: number;
  server?: { totalMs: number; stages: Record<string, number> };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** A search's stages; `stack` is what the subgraph did not see: REST adapter, gateway, HTTP hops, response. */
function stagesOf(search: TimedSearch): Record<string, number> {
  if (!search.server) return { stack: search.ms };
  return { stack: Math.max(0, search.ms - search.server.totalMs), ...search.server.stages };
}

const describe = (stages: Record<string, number>, names: string[]) =>
  names
    .filter((n) => stages[n] !== undefined)
    .map((n) => `${n} ${stages[n].toFixed(0)}`)
    .join(', ');

/**
 * Where a selfie search's time goes, stage by stage: the median and p99 of each stage over all
 * searches, and the stages of the slowest searches (the tail, explained). embed.* split the
 * embedding round trip: queue (enqueue + hop to the ml-worker), worker (model included), reply.
 */
export function stageTable(searches: TimedSearch[]): BenchRow[] {
  const all = searches.map(stagesOf);
  const names = [...new Set(all.flatMap((s) => Object.keys(s)))];
  const at = (p: number) =>
    Object.fromEntries(
      names.map((n) => [
        n,
        percentile(
          all.map((s) => s[n] ?? 0),
          p,
        ),
      ]),
    );
  const slowest = searches
    .map((s, i) => ({ ms: s.ms, stages: all[i] }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3);
  const missing = searches.filter((s) => !s.server).length;
  const how = `ms per stage; stack = client time minus the search subgraph's own (REST adapter, gateway, HTTP hops); embed = the whole round trip, embed.queue/worker/model/reply its parts (model = time on the selfie thread); ${missing ? `${missing} searches without a timing line` : 'every search with its timing line'}`;
  return [
    { figure: 'selfie search stages, median of each', value: describe(at(0.5), names), target: '', how },
    {
      figure: 'selfie search stages, p99 of each',
      value: describe(at(0.99), names),
      target: '',
      how: 'the p99 of each stage on its own (they need not be the same search)',
    },
    {
      figure: 'selfie search, the 3 slowest',
      value: slowest.map((s) => `${s.ms.toFixed(0)} ms: ${describe(s.stages, names)}`).join('; '),
      target: '',
      how: 'the stages of the three slowest searches of the run',
    },
  ];
}
