import { AppError, Principal } from '@em/core';
import { accessOnly, EventsRepository, guardOperation, StartListRepository } from '@em/core/data';
import { parseStartListCsv, START_LIST_MAX_LINES, StartListLineError, startListCsv } from './start-list-csv';

export type StartListMode = 'append' | 'replace';

export interface StartListImportResult {
  /** Participants stored by this import. */
  imported: number;
  /** Participants on the event's start list after it. */
  total: number;
  /** Lines left out (only with skipInvalid). */
  skipped: StartListLineError[];
}

/** The invalid lines an error names in its details (all are counted). */
const REPORTED_LINES = 1000;

/** What changed an event's start list: who, how, how many (for the audit log). */
export interface StartListChange {
  principal: Principal;
  orgId: number;
  mode: StartListMode;
  imported: number;
  total: number;
  skipped: number;
}

/** Told when an event's start list changed, so that bib reads can be judged again and the change recorded. */
export type StartListChanged = (eventId: number, change: StartListChange) => Promise<void>;

/** An event's start list: imported from CSV (append or replace, all or nothing unless told to skip invalid lines), exported back. */
export class StartListService {
  constructor(
    private readonly events: EventsRepository,
    private readonly startLists: StartListRepository,
    private readonly onChanged: StartListChanged = async () => undefined,
    /** A list holds at most what one file may (appends included: the export and the re-judging read it whole). */
    private readonly limits: { maxParticipants: number } = { maxParticipants: START_LIST_MAX_LINES },
  ) {}

  /** `file` is read after the guard: nobody makes the service read a file they may not import. */
  async import(
    principal: Principal,
    orgId: number,
    eventId: number,
    file: () => Promise<Buffer>,
    mode: StartListMode,
    skipInvalid: boolean,
  ): Promise<StartListImportResult> {
    await guardOperation(accessOnly(this.events), principal, 'importStartList', orgId, eventId);
    const parsed = parseStartListCsv(await file());
    const errors = [...parsed.errors];
    if (mode === 'append' && parsed.entries.length) {
      const listed = await this.startLists.bibsAmong(
        eventId,
        parsed.entries.map((e) => e.bib),
      );
      parsed.entries.forEach((e, i) => {
        if (listed.has(e.bib))
          errors.push({
            line: parsed.lines[i],
            reason: `bib ${e.bib} is already on the start list (replace the list to change it)`,
          });
      });
    }
    errors.sort((a, b) => a.line - b.line);
    const badLines = new Set(errors.map((e) => e.line));
    const entries = parsed.entries.filter((_, i) => !badLines.has(parsed.lines[i]));
    const fatal = parsed.errors.length > 0 && parsed.entries.length === 0 && parsed.errors[0].line === 1;
    if (errors.length && (!skipInvalid || fatal)) throw invalidFile(errors, skipInvalid);
    if (entries.length === 0)
      throw new AppError('BAD_USER_INPUT', 'The start list file has no participant lines: nothing was stored', {
        field: 'file',
      });
    if (mode === 'append') {
      const total = (await this.startLists.count(eventId)) + entries.length;
      if (total > this.limits.maxParticipants)
        throw new AppError(
          'BAD_USER_INPUT',
          `A start list holds at most ${this.limits.maxParticipants} participants; this file would make ${total}: nothing was stored (replace the list instead)`,
          { field: 'file' },
        );
    }
    try {
      if (mode === 'replace') await this.startLists.replace(eventId, entries);
      else await this.startLists.append(eventId, entries);
    } catch (err) {
      // Two appends of the same bib at once: the table's key refuses the later one.
      if (/duplicate key|unique constraint/i.test((err as Error).message)) {
        throw new AppError(
          'CONFLICT',
          'A bib of the file was added to the start list meanwhile: nothing was stored; try again',
        );
      }
      throw err;
    }
    const total = await this.startLists.count(eventId);
    await this.onChanged(eventId, {
      principal,
      orgId,
      mode,
      imported: entries.length,
      total,
      skipped: skipInvalid ? errors.length : 0,
    });
    return { imported: entries.length, total, skipped: skipInvalid ? errors : [] };
  }

  /** How many participants the start list has (what the dashboard shows before an import). */
  async size(principal: Principal, orgId: number, eventId: number): Promise<number> {
    await guardOperation(accessOnly(this.events), principal, 'startListSize', orgId, eventId);
    return this.startLists.count(eventId);
  }

  /** The start list as CSV (what import reads), and how many participants it has. */
  async export(principal: Principal, orgId: number, eventId: number): Promise<{ csv: string; count: number }> {
    await guardOperation(accessOnly(this.events), principal, 'exportStartList', orgId, eventId);
    const entries = await this.startLists.list(eventId);
    return { csv: startListCsv(entries), count: entries.length };
  }
}

function invalidFile(errors: StartListLineError[], skipInvalid: boolean): AppError {
  const first = errors
    .slice(0, 3)
    .map((e) => `line ${e.line}: ${e.reason}`)
    .join('; ');
  const what =
    errors.length === 1
      ? '1 line of the start list is invalid'
      : `${errors.length} lines of the start list are invalid`;
  const hint = skipInvalid ? '' : ' (skipping invalid lines imports the valid ones)';
  return new AppError(
    'BAD_USER_INPUT',
    `${what}; nothing was stored${hint}: ${first}${errors.length > 3 ? '; ...' : ''}`,
    {
      field: 'file',
      invalidLines: errors.length,
      lines: errors.slice(0, REPORTED_LINES),
    },
  );
}
