import './compile-cache';
import 'reflect-metadata';
import { AppError, Config, connectRedis, ContentVersions, keyInvalidationNotifier, loadConfig } from '@em/core';
import { openDatabase, Orm } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { ADMIN_COMMANDS } from './organiser/admin-commands';
import { Command, CommandContext, CommandOutput } from './organiser/command';
import { parseFlags } from './organiser/flags';
import { KEY_COMMANDS } from './organiser/key-commands';
import { START_LIST_COMMANDS } from './organiser/start-list-commands';
import { PHOTO_COMMANDS } from './organiser/photo-commands';

/**
 * The organiser's command line: `npm run cli -- <command> [--option value] [--json]`. It works on
 * the platform configured in the environment, or on the one `npm start` runs (`.data/platform.env`),
 * through the services the GraphQL API uses, acting as the platform operator.
 */
const COMMANDS: Record<string, Command> = {
  ...ADMIN_COMMANDS,
  ...KEY_COMMANDS,
  ...START_LIST_COMMANDS,
  ...PHOTO_COMMANDS,
};

const HELP = `Usage: npm run cli -- <command> [options] [--json]   (--help after a command for its options)

${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(16)} ${c.summary}`)
  .join('\n')}`;

const helpOf = (c: Command) => `Usage: npm run cli -- ${c.usage} [--json]\n\n  ${c.summary}`;

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || name === 'help' || name === '--help') return void console.log(HELP);
  const command = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new Error(`unknown command ${name} (npm run cli -- --help lists them)`);
  if (rest.includes('--help')) return void console.log(helpOf(command));
  // `photo <action> --flags`: the action is the first word after the command.
  const action = name === 'photo' && rest[0] && !rest[0].startsWith('--') ? rest.shift() : undefined;
  const flags = parseFlags(rest);
  if (action) flags.action = action;
  const unknown = Object.keys(flags).filter((f) => f !== 'json' && !command.flags.includes(f));
  if (unknown.length)
    throw new Error(`${name} does not take --${unknown.join(', --')} (npm run cli -- ${name} --help)`);

  const cfg = loadConfig();
  const orm = await openDatabase(cfg);
  try {
    const output = command.standalone
      ? await command.run({ cfg, orm }, flags)
      : await withServices(cfg, orm, (ctx) => command.run(ctx, flags));
    if (flags.json) console.log(JSON.stringify(output.json));
    else if (output.text) console.log(output.text);
  } finally {
    await orm.close();
  }
}

/** `run` with the services the GraphQL API uses, loaded only for the commands that need them (seconds of CPU). */
async function withServices(
  cfg: Config,
  orm: Orm,
  run: (ctx: CommandContext) => Promise<CommandOutput>,
): Promise<CommandOutput> {
  const { administrationServices, PLATFORM_OPERATOR } = await import('@em/subgraph-events');
  const { PhotoReviewService } = await import('@em/subgraph-images');
  const em = orm.em.fork();
  let jobs: JobQueues | undefined;
  const keyChanges = keyInvalidationNotifier(cfg.REDIS_URL, (err) =>
    console.error(
      `warning: gateways were not told of the key change (${(err as Error).message}); they notice within API_KEY_CACHE_SECONDS`,
    ),
  );
  const redis = connectRedis(cfg.REDIS_URL);
  const store = new ObjectStore(cfg);
  const services = administrationServices({
    em: () => em,
    store,
    jobs: () => (jobs ??= new JobQueues(cfg.REDIS_URL)),
    maxApiKeysPerOrganisation: cfg.MAX_API_KEYS_PER_ORG,
    redis,
    onKeyChanged: (keyId) => keyChanges.keyChanged(keyId),
  });
  try {
    const versions = new ContentVersions(services.repos.events, redis);
    const review = new PhotoReviewService(
      services.repos.events,
      services.repos.photos,
      store,
      versions,
      services.repos.audit,
    );
    return await run({ cfg, orm, services, review, operator: PLATFORM_OPERATOR });
  } finally {
    keyChanges.close();
    redis.disconnect();
    await jobs?.close();
  }
}

main().catch((err) => {
  // One line: the message a person can act on (an AppError's is written for clients; anything else is ours).
  const message = err instanceof AppError || err instanceof Error ? err.message : String(err);
  console.error(`error: ${message.split('\n')[0]}`);
  process.exit(1);
});
