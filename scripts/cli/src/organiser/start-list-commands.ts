import { AppError } from '@em/core';
import type { StartListLineError } from '@em/subgraph-events';
import { readFile, writeFile } from 'node:fs/promises';
import { Command, CommandContext } from './command';
import { need, positiveInt } from './flags';

/** The organisation of the event (the services take both, as the API does). */
async function orgOf({ services }: CommandContext, eventId: number): Promise<number> {
  const event = await services.repos.events.findById(eventId);
  if (!event) throw new Error(`no event ${eventId}`);
  return event.organisation.id;
}

const lineList = (lines: StartListLineError[]) => lines.map((l) => `  line ${l.line}: ${l.reason}`).join('\n');

/** Start list commands: import a CSV (append or replace), export it back. */
export const START_LIST_COMMANDS: Record<string, Command> = {
  'import-start-list': {
    usage: 'import-start-list --event ID --file F [--replace] [--skip-invalid]',
    summary:
      "adds the CSV's participants to the event's start list (--replace: replaces the list); every bad line is listed, nothing stored unless --skip-invalid",
    flags: ['event', 'file', 'replace', 'skip-invalid'],
    async run(ctx, flags) {
      const eventId = positiveInt(flags, 'event');
      const path = need(flags, 'file');
      const orgId = await orgOf(ctx, eventId);
      const mode = flags.replace ? 'replace' : 'append';
      try {
        const result = await ctx.services.startLists.import(
          ctx.operator,
          orgId,
          eventId,
          () => readFile(path),
          mode,
          Boolean(flags['skip-invalid']),
        );
        const skipped = result.skipped.length
          ? `; ${result.skipped.length} invalid lines skipped:\n${lineList(result.skipped)}`
          : '';
        return {
          json: result,
          text: `${result.imported} participants imported (${mode}); the start list has ${result.total}${skipped}`,
        };
      } catch (err) {
        const lines = err instanceof AppError ? (err.details?.lines as StartListLineError[] | undefined) : undefined;
        if (!lines?.length) throw err;
        // The one-line error says how many; the lines go to stderr before it, one per line.
        console.error(lineList(lines));
        throw err;
      }
    },
  },
  'export-start-list': {
    usage: 'export-start-list --event ID [--out FILE]',
    summary: "writes the event's start list as CSV (to FILE, or to stdout)",
    flags: ['event', 'out'],
    async run(ctx, flags) {
      const eventId = positiveInt(flags, 'event');
      const exported = await ctx.services.startLists.export(ctx.operator, await orgOf(ctx, eventId), eventId);
      if (flags.out) {
        await writeFile(flags.out, exported.csv);
        return {
          json: { count: exported.count, file: flags.out },
          text: `${exported.count} participants written to ${flags.out}`,
        };
      }
      return { json: exported, text: exported.csv.trimEnd() };
    },
  },
};
