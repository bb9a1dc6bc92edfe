import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, downloadText, gql } from './api';
import {
  METRICS,
  monthOf,
  monthsBetween,
  monthWindow,
  totalsPerMonth,
  UsageCounts,
  UsageRow,
  usageCsv,
} from './usage-report';
import { everyEventName } from './event-names';
import { Messages } from './messages';

const COUNTS = 'faceSearchesBilled photosProcessed videosIndexed clipsMade';
const USAGE = `query($orgId: Int!, $from: DateTimeISO, $to: DateTimeISO) {
  usage(orgId: $orgId, from: $from, to: $to) { rows { eventId month ${COUNTS} } totals { ${COUNTS} } } }`;

interface Report {
  rows: UsageRow[];
  totals: UsageCounts;
  names: Map<number, string>;
  months: string[];
}

/** Grouped bars per month, one per metric, on one scale; each bar says its figure in its title. */
function UsageChart({ report }: { report: Report }) {
  const totals = totalsPerMonth(report.rows, report.months);
  const max = Math.max(1, ...[...totals.values()].flatMap((t) => METRICS.map((m) => t[m.key])));
  const group = 56;
  const bar = 10;
  const height = 160;
  const box = useRef<HTMLDivElement>(null);
  // The latest months matter most: on a narrow screen the chart opens scrolled to its end.
  useEffect(() => box.current?.scrollTo({ left: box.current.scrollWidth }), [report]);
  return (
    <div
      ref={box}
      class="chart"
      tabIndex={0}
      role="region"
      aria-label="Usage chart (scrolls sideways on a small screen)"
    >
      <svg
        width={report.months.length * group}
        height={height + 24}
        role="img"
        aria-label="Usage per month; the table below has the figures"
      >
        {report.months.map((month, i) => (
          <g key={month} transform={`translate(${i * group + 4},0)`}>
            {METRICS.map((m, j) => {
              const value = totals.get(month)![m.key];
              const h = Math.round((value / max) * height);
              return (
                <rect
                  key={m.key}
                  class={`bar-${j}`}
                  x={j * (bar + 2)}
                  y={height - h}
                  width={bar}
                  height={Math.max(h, 1)}
                >
                  <title>
                    {month}: {value} {m.label.toLowerCase()}
                  </title>
                </rect>
              );
            })}
            <text x={2 * (bar + 2) - 1} y={height + 16} text-anchor="middle">
              {month}
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
}

/** Usage per month and event: a chart, a table and its CSV, for a window of months (its admins only). */
export function UsagePage({ org }: { org: { id: number; name: string; role: string | null } }) {
  const now = new Date();
  const [from, setFrom] = useState(monthOf(now, 11));
  const [to, setTo] = useState(monthOf(now));
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [forbidden, setForbidden] = useState(org.role === 'user');

  async function load() {
    setError(null);
    const window = monthWindow(from, to);
    if ('error' in window) return setError(window.error);
    try {
      const [d, names] = await Promise.all([
        gql<{ usage: { rows: UsageRow[]; totals: UsageCounts } }>(USAGE, { orgId: org.id, ...window }),
        everyEventName(org.id),
      ]);
      const byMonth = (a: UsageRow, b: UsageRow) => a.month.localeCompare(b.month) || a.eventId - b.eventId;
      setReport({
        rows: [...d.usage.rows].sort(byMonth),
        totals: d.usage.totals,
        names,
        months: monthsBetween(from, to),
      });
    } catch (err) {
      if ((err as ApiError).code === 'FORBIDDEN') setForbidden(true);
      else setError((err as Error).message);
    }
  }
  useEffect(() => {
    if (org.role !== 'user') void load();
  }, [org.id]);

  const eventName = (id: number) => report?.names.get(id) ?? `Event ${id} (deleted)`;
  if (forbidden)
    return (
      <section>
        <h1>Usage of {org.name}</h1>
        <p class="card">Admins only: ask an admin of {org.name} for the usage report.</p>
      </section>
    );
  return (
    <section>
      <h1>Usage of {org.name}</h1>
      <form
        class="card month-range"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <div>
          <label for="usage-from">From (month)</label>
          <input id="usage-from" type="month" required value={from} onInput={(e) => setFrom(inputValue(e))} />
        </div>
        <div>
          <label for="usage-to">To (month, included)</label>
          <input id="usage-to" type="month" required value={to} onInput={(e) => setTo(inputValue(e))} />
        </div>
        <button class="primary" type="submit">
          Show
        </button>
        <button
          type="button"
          disabled={!report}
          onClick={() => report && downloadText(`usage-${from}-to-${to}.csv`, usageCsv(report.rows, eventName))}
        >
          Download CSV
        </button>
      </form>
      <Messages error={error} />
      {!report ? (
        !error && <p>Loading…</p>
      ) : (
        <>
          <div class="card">
            <h2>Per month</h2>
            <ul class="legend">
              {METRICS.map((m, j) => (
                <li key={m.key}>
                  <span class={`swatch bar-${j}`} aria-hidden="true" />
                  {m.label}: {report.totals[m.key]}
                </li>
              ))}
            </ul>
            <UsageChart report={report} />
          </div>
          {report.rows.length === 0 ? (
            <p>No usage in these months.</p>
          ) : (
            <div class="table-wrap">
              <table data-testid="usage-table">
                <thead>
                  <tr>
                    <th scope="col">Month</th>
                    <th scope="col">Event</th>
                    {METRICS.map((m) => (
                      <th scope="col" key={m.key}>
                        {m.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {report.rows.map((r) => (
                    <tr key={`${r.month}-${r.eventId}`}>
                      <td data-label="Month">{r.month}</td>
                      <td data-label="Event">{eventName(r.eventId)}</td>
                      {METRICS.map((m) => (
                        <td data-label={m.label} key={m.key}>
                          {r[m.key]}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row" colSpan={2}>
                      Total
                    </th>
                    {METRICS.map((m) => (
                      <td data-label={m.label} key={m.key}>
                        {report.totals[m.key]}
                      </td>
                    ))}
                  </tr>
                </tfoot>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}

const inputValue = (e: Event) => (e.target as HTMLInputElement).value;
