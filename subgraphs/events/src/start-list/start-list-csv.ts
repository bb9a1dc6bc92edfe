import { normaliseBib } from '@em/core';
import type { StartListEntry } from '@em/core/data';

/** A line of the file that cannot be imported, and why (line numbers count from 1, the header included). */
export interface StartListLineError {
  line: number;
  reason: string;
}

export interface ParsedStartList {
  /** The valid lines, in file order. */
  entries: StartListEntry[];
  /** The line number of each entry. */
  lines: number[];
  /** Every invalid line; a header problem is line 1 and leaves no entries. */
  errors: StartListLineError[];
}

/** The most lines a start list file may have (the header excluded). */
export const START_LIST_MAX_LINES = 200_000;
const BIB = /^[A-Z0-9]{1,6}$/;
const MAX_FIELD_CHARS = 200;
/** A start list has six columns; a spreadsheet's export may add some. More is not a start list (nor kept in memory). */
const MAX_FIELDS_PER_LINE = 100;
// Control characters (tabs and line breaks included): a name is one line of text.
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Text a spreadsheet runs as a formula when the file is opened (names are typed by participants), or such text
 * behind apostrophes: export puts one apostrophe before it, import takes one off, so every text comes back as it was.
 */
const FORMULA_LIKE = /^'*[=+\-@]/;
const COLUMNS = ['bib', 'first_name', 'last_name', 'name', 'category', 'team'] as const;
type Column = (typeof COLUMNS)[number];

/** One record of the file and the line it starts on. */
interface CsvRecord {
  line: number;
  fields: string[];
}

/** The delimiter of the header line: semicolon when it has more of them than commas (outside quotes). */
function delimiterOf(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ',') commas++;
    else if (!quoted && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** RFC 4180 records: quoted fields may hold the delimiter, doubled quotes and line breaks; CRLF or LF. */
function* records(text: string, delimiter: string): Generator<CsvRecord | { line: number; error: string }> {
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let field = '';
    let error: string | null = null;
    for (;;) {
      if (text[i] === '"') {
        i++;
        let closed = false;
        while (i < text.length) {
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (text[i] === '\n') line++;
          field += text[i++];
        }
        if (!closed) error = 'a quoted field is not closed';
        // Text after the closing quote before the delimiter is kept, as spreadsheets do.
      }
      while (i < text.length && text[i] !== delimiter && text[i] !== '\n' && text[i] !== '\r') {
        if (text[i] === '"' && error === null) error = 'a quote inside an unquoted field';
        field += text[i++];
      }
      if (fields.length < MAX_FIELDS_PER_LINE) fields.push(field);
      else error ??= `a line has more than ${MAX_FIELDS_PER_LINE} fields`;
      field = '';
      if (text[i] === delimiter) {
        i++;
        continue;
      }
      break;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    line++;
    if (error) yield { line: start, error };
    else if (!(fields.length === 1 && fields[0].trim() === '')) yield { line: start, fields };
  }
}

function header(fields: string[]): { columns: Map<Column, number> } | { error: string } {
  const columns = new Map<Column, number>();
  for (const [index, raw] of fields.entries()) {
    const name = raw
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
    if ((COLUMNS as readonly string[]).includes(name)) {
      if (columns.has(name as Column)) return { error: `the column ${name} appears twice` };
      columns.set(name as Column, index);
    }
  }
  if (!columns.has('bib'))
    return { error: 'the header row has no bib column (columns: bib, first_name, last_name or name, category, team)' };
  if (!columns.has('name') && !columns.has('first_name') && !columns.has('last_name')) {
    return { error: 'the header row has no name column (name, or first_name and last_name)' };
  }
  return { columns };
}

/** A text field: trimmed, null when empty; an error when it is too long or holds control characters. */
function text(value: string | undefined, column: string): { value: string | null } | { error: string } {
  const trimmed = (value ?? '').trim();
  if (trimmed.length > MAX_FIELD_CHARS) return { error: `${column} is longer than ${MAX_FIELD_CHARS} characters` };
  if (CONTROL.test(trimmed)) return { error: `${column} holds a line break or control character` };
  // The apostrophe export puts before formula-like text is not part of it.
  const unguarded = trimmed.startsWith("'") && FORMULA_LIKE.test(trimmed.slice(1)) ? trimmed.slice(1) : trimmed;
  return { value: unguarded || null };
}

/**
 * Reads a start list file: UTF-8 with or without BOM, a header row, comma or semicolon separated,
 * quoted fields. Every invalid line is reported with its reason; the valid ones are returned.
 */
export function parseStartListCsv(file: Buffer): ParsedStartList {
  let content: string;
  try {
    content = new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    return {
      entries: [],
      lines: [],
      errors: [{ line: 1, reason: 'the file is not UTF-8 text (save it as CSV UTF-8)' }],
    };
  }
  if (content.charCodeAt(0) === 0xfeff) content = content.slice(1);
  if (content.includes('\u0000'))
    return { entries: [], lines: [], errors: [{ line: 1, reason: 'the file is not a text file' }] };
  const iterator = records(content, delimiterOf(content));
  const first = iterator.next();
  if (first.done)
    return { entries: [], lines: [], errors: [{ line: 1, reason: 'the file is empty (a header row is required)' }] };
  if ('error' in first.value)
    return { entries: [], lines: [], errors: [{ line: first.value.line, reason: first.value.error }] };
  const head = header(first.value.fields);
  if ('error' in head) return { entries: [], lines: [], errors: [{ line: first.value.line, reason: head.error }] };
  const width = first.value.fields.length;
  const field = (fields: string[], column: Column) => {
    const index = head.columns.get(column);
    return index === undefined ? undefined : fields[index];
  };

  const entries: StartListEntry[] = [];
  const lines: number[] = [];
  const errors: StartListLineError[] = [];
  const seen = new Map<string, number>();
  let count = 0;
  for (const record of iterator) {
    if (++count > START_LIST_MAX_LINES) {
      errors.push({ line: record.line, reason: `a start list has at most ${START_LIST_MAX_LINES} lines` });
      break;
    }
    if ('error' in record) {
      errors.push({ line: record.line, reason: record.error });
      continue;
    }
    const reason = lineError(record.fields, width, field, seen);
    if (typeof reason === 'string') errors.push({ line: record.line, reason });
    else {
      seen.set(reason.bib, record.line);
      entries.push(reason);
      lines.push(record.line);
    }
  }
  return { entries, lines, errors };
}

function lineError(
  fields: string[],
  width: number,
  field: (fields: string[], column: Column) => string | undefined,
  seen: Map<string, number>,
): StartListEntry | string {
  if (fields.length !== width) return `${fields.length} fields where the header has ${width}`;
  const rawBib = (field(fields, 'bib') ?? '').trim();
  if (!rawBib) return 'empty bib';
  const bib = normaliseBib(rawBib);
  if (!BIB.test(bib)) return `bib "${rawBib.slice(0, 20)}" is not 1 to 6 letters or digits`;
  const earlier = seen.get(bib);
  if (earlier !== undefined) return `duplicate bib ${bib} (also on line ${earlier})`;
  const values: Partial<Record<Column, string | null>> = {};
  for (const column of ['first_name', 'last_name', 'name', 'category', 'team'] as const) {
    const checked = text(field(fields, column), column);
    if ('error' in checked) return checked.error;
    values[column] = checked.value;
  }
  const firstName = values.first_name ?? null;
  const lastName = values.last_name ?? null;
  const name = values.name ?? ([firstName, lastName].filter(Boolean).join(' ') || null);
  if (!name) return 'no name (name, or first_name and last_name, are empty)';
  return { bib, firstName, lastName, name, category: values.category ?? null, team: values.team ?? null };
}

/**
 * The start list as a CSV file (comma separated, UTF-8, quoted where needed): what import reads back. A text a
 * spreadsheet would run as a formula gets an apostrophe first (shown as text; import takes it off again).
 */
export function startListCsv(entries: readonly StartListEntry[]): string {
  const quote = (value: string | null) => {
    const text = FORMULA_LIKE.test(value ?? '') ? `'${value}` : (value ?? '');
    return /[",;\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = entries.map((e) => [e.bib, e.firstName, e.lastName, e.name, e.category, e.team].map(quote).join(','));
  return ['bib,first_name,last_name,name,category,team', ...lines].join('\n') + '\n';
}
