/** One figure of `npm run bench`: its value, the target it is held to, and how it was measured. */
export interface BenchRow {
  figure: string;
  value: string;
  target: string;
  how: string;
}

export const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export function markdownTable(rows: BenchRow[]): string {
  return [
    '| figure | value | target | how it was measured |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.figure} | ${r.value} | ${r.target} | ${r.how} |`),
  ].join('\n');
}
