import { useEffect, useState } from 'preact/hooks';
import { ApiError, downloadText, gql, gqlUpload } from './api';
import { CheckboxField } from './checkbox-field';

interface LineError {
  line: number;
  reason: string;
}

interface Outcome {
  imported: number;
  total: number;
  skipped: LineError[];
}

const IMPORT = `mutation($orgId: Int!, $eventId: Int!, $file: Upload!, $mode: StartListImportMode!, $skipInvalid: Boolean) {
  importStartList(orgId: $orgId, eventId: $eventId, file: $file, mode: $mode, skipInvalid: $skipInvalid) {
    imported total skipped { line reason } } }`;
const EXPORT = `query($orgId: Int!, $eventId: Int!) { exportStartList(orgId: $orgId, eventId: $eventId) { csv count } }`;
const SIZE = `query($orgId: Int!, $eventId: Int!) { startListSize(orgId: $orgId, eventId: $eventId) }`;

/** What the event holds now, before anyone chooses Append or Replace. */
function sizeSentence(size: number): string {
  if (size === 0) return 'This event has no start list yet.';
  return `The start list has ${size} participant${size === 1 ? '' : 's'}.`;
}

const isLineError = (value: unknown): value is LineError =>
  typeof (value as LineError | null)?.line === 'number' && typeof (value as LineError).reason === 'string';

/** The lines the server listed in its refusal (extensions.lines), when it listed them. */
function refusedLines(err: unknown): LineError[] {
  const lines: unknown = err instanceof ApiError ? err.extensions.lines : undefined;
  return Array.isArray(lines) ? (lines as unknown[]).filter(isLineError) : [];
}

function LineErrors({ lines, caption }: { lines: LineError[]; caption: string }) {
  return (
    <div class="table-wrap">
      <table data-testid="line-errors">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.line}>
              <td data-label="Line">{l.line}</td>
              <td data-label="Reason">{l.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The event's start list: a CSV upload (append or replace, invalid lines skipped or not) with every line error; export. */
export function StartListPage({ orgId, eventId }: { orgId: number; eventId: number }) {
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<'APPEND' | 'REPLACE'>('APPEND');
  const [skipInvalid, setSkipInvalid] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<{ message: string; lines: LineError[] } | null>(null);
  const [size, setSize] = useState<number | null>(null);

  useEffect(() => {
    gql<{ startListSize: number }>(SIZE, { orgId, eventId })
      .then((d) => setSize(d.startListSize))
      .catch(() => setSize(null));
  }, [orgId, eventId]);

  async function submit(e: Event) {
    e.preventDefault();
    if (!file) return setError({ message: 'Choose a CSV file first.', lines: [] });
    setError(null);
    setOutcome(null);
    setProgress(0);
    try {
      const d = await gqlUpload<{ importStartList: Outcome }>(
        IMPORT,
        { orgId, eventId, mode, skipInvalid },
        'file',
        file,
        setProgress,
        false,
      );
      setOutcome(d.importStartList);
      setSize(d.importStartList.total);
    } catch (err) {
      setError({ message: (err as Error).message, lines: refusedLines(err) });
    } finally {
      setProgress(null);
    }
  }

  async function exportList() {
    setError(null);
    try {
      const d = await gql<{ exportStartList: { csv: string; count: number } }>(EXPORT, { orgId, eventId });
      downloadText(`start-list-event-${eventId}.csv`, d.exportStartList.csv);
    } catch (err) {
      setError({ message: (err as Error).message, lines: [] });
    }
  }

  return (
    <section>
      <h1>Start list</h1>
      {size !== null && <p data-testid="start-list-size">{sizeSentence(size)}</p>}
      <form class="card" onSubmit={(e) => void submit(e)}>
        <h2>Import a CSV</h2>
        <p class="help">
          A header row, then one participant a line: bib, first_name and last_name (or name), category, team; comma or
          semicolon separated, UTF-8.
        </p>
        <label for="start-list-file">CSV file</label>
        <input
          id="start-list-file"
          type="file"
          accept=".csv,text/csv,text/plain"
          required
          onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
        <fieldset>
          <legend>Mode</legend>
          <div class="flag">
            <input
              id="mode-append"
              type="radio"
              name="mode"
              checked={mode === 'APPEND'}
              onChange={() => setMode('APPEND')}
            />
            <label for="mode-append">
              Append: add these participants (a bib already on the list is an invalid line)
            </label>
          </div>
          <div class="flag">
            <input
              id="mode-replace"
              type="radio"
              name="mode"
              checked={mode === 'REPLACE'}
              onChange={() => setMode('REPLACE')}
            />
            <label for="mode-replace">Replace: the file becomes the whole start list</label>
          </div>
        </fieldset>
        <CheckboxField
          id="skip-invalid"
          checked={skipInvalid}
          onChange={setSkipInvalid}
          label="Skip invalid lines (otherwise one invalid line stores nothing)"
        />
        <button class="primary" type="submit" disabled={progress !== null}>
          Import
        </button>
        <button type="button" onClick={() => void exportList()}>
          Download the start list (CSV)
        </button>
        {progress !== null && <progress max={1} value={progress} aria-label="Upload of the start list" />}
      </form>
      {error && (
        <div class="error" role="alert">
          <p>{error.message}</p>
          {error.lines.length > 0 && <LineErrors lines={error.lines} caption="Invalid lines: nothing was stored" />}
        </div>
      )}
      {outcome && (
        <div class="ok" role="status">
          <p data-testid="import-outcome">
            Imported {outcome.imported} participant{outcome.imported === 1 ? '' : 's'}; the start list has{' '}
            {outcome.total} now.
          </p>
          {outcome.skipped.length > 0 && <LineErrors lines={outcome.skipped} caption="Lines left out" />}
        </div>
      )}
    </section>
  );
}
