import type { Config, Principal } from '@em/core';
import type { Orm } from '@em/core/data';
import type { AdministrationServices } from '@em/subgraph-events';
import type { PhotoReviewService } from '@em/subgraph-images';
import type { Flags } from './flags';

export interface CommandContext {
  cfg: Config;
  orm: Orm;
  services: AdministrationServices;
  /** The organiser's photo review (the images subgraph's service). */
  review: PhotoReviewService;
  /** Who the CLI acts as: the platform operator (it holds the database credentials). */
  operator: Principal;
}

/** What a command answers: `json` for `--json`, `text` for people. */
export interface CommandOutput {
  json: unknown;
  text: string;
}

/** What a command that needs only the configuration and the database is given. */
export type StandaloneContext = Pick<CommandContext, 'cfg' | 'orm'>;

interface CommandBase {
  /** One line: the command and its options. */
  usage: string;
  summary: string;
  /** The options it takes (besides --json and --help); any other is an error. */
  flags: string[];
}

/** A command on the services the GraphQL API uses. */
export interface ServiceCommand extends CommandBase {
  standalone?: false;
  run(ctx: CommandContext, flags: Flags): Promise<CommandOutput>;
}

/** A command on the configuration and the database alone: the services are not loaded (a long import starts at once). */
export interface StandaloneCommand extends CommandBase {
  standalone: true;
  run(ctx: StandaloneContext, flags: Flags): Promise<CommandOutput>;
}

export type Command = ServiceCommand | StandaloneCommand;

export const table = (rows: Array<Array<string | number | null>>): string =>
  rows.map((r) => r.map((c) => c ?? '-').join('\t')).join('\n');
