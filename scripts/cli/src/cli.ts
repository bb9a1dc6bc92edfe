import 'reflect-metadata';
import { keyInvalidationNotifier, embeddedIssuerFiles, loadConfig, mintAccessToken, readPrivateKey, SCOPES } from '@em/core';
import { Account, ApiKeyService, Membership, openDatabase, Organisation } from '@em/core/data';
import { existsSync } from 'node:fs';
import { addVideo } from './organiser/add-video';
import { importFolder } from './organiser/import-folder';
import { reembedFaces } from './organiser/reembed-faces';

/**
 * The organiser's command line: `npm run cli -- <command> [--flag value]`. It works on the
 * platform configured in the environment, or on the one `npm start` runs (`.data/platform.env`).
 */
const HELP = `Commands:
  create-account --email E [--org ID --role admin|user]   an account (and its membership)
  mint-token --email E [--scopes events:read,...] [--expires-in SECONDS]
                                                          an access token of the embedded issuer
  create-key --org ID --name NAME [--hosts a.example,*.b.example,203.0.113.7] [--rate-limit N] [--read-only]
  list-keys --org ID
  deactivate-key --org ID --key KEY_ID | activate-key --org ID --key KEY_ID | delete-key --org ID --key KEY_ID
  import-photos --event ID --dir FOLDER [--photographer NAME] [--no-process] [--no-go-live]
                                                          imports a folder (recursively), processes it and
                                                          publishes it, with progress
  add-video --event ID --file VIDEO [--source-key KEY] [--no-wait]
                                                          adds a video; the ml-worker indexes its faces
  reembed-faces --event ID                                processes again the photos and videos whose faces
                                                          are of an older descriptor version`;

/** Flags that take no value. */
const SWITCHES = new Set(['--read-only']);

function parseFlags(args: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('--')) throw new Error(`unexpected argument ${args[i]}`);
    if (args[i].startsWith('--no-') || SWITCHES.has(args[i])) {
      flags[args[i].slice(2)] = 'true';
      continue;
    }
    flags[args[i].slice(2)] = args[i + 1] ?? '';
    i++;
  }
  return flags;
}

function need(flags: Record<string, string>, name: string): string {
  if (!flags[name]) throw new Error(`--${name} is required`);
  return flags[name];
}

const intFlag = (flags: Record<string, string>, name: string) => {
  const n = Number(need(flags, name));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
};

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help') return console.log(HELP);
  const flags = parseFlags(rest);
  const cfg = loadConfig();
  const orm = await openDatabase(cfg);
  const em = orm.em.fork();
  const keyChanges = keyInvalidationNotifier(cfg.REDIS_URL, (err) => console.error(`warning: gateways were not told of the key change (${(err as Error).message}); they notice within API_KEY_CACHE_SECONDS`));
  const keys = new ApiKeyService(cfg.MAX_API_KEYS_PER_ORG, (keyId) => keyChanges.keyChanged(keyId));
  try {
    switch (command) {
      case 'create-account': {
        const email = need(flags, 'email').toLowerCase();
        const account = (await em.findOne(Account, { email })) ?? em.create(Account, { email });
        if (flags.org) {
          const organisation = await em.findOneOrFail(Organisation, { id: intFlag(flags, 'org') });
          const role = (flags.role ?? 'user') as 'admin' | 'user';
          if (role !== 'admin' && role !== 'user') throw new Error('--role is admin or user');
          const membership = (await em.findOne(Membership, { organisation, account })) ?? em.create(Membership, { organisation, account });
          membership.role = role;
          membership.status = 'active';
        }
        await em.flush();
        console.log(`account ${account.id} <${email}>`);
        break;
      }
      case 'mint-token': {
        const email = need(flags, 'email').toLowerCase();
        const account = await em.findOne(Account, { email });
        if (!account) throw new Error(`no account ${email}: create it with create-account`);
        const files = embeddedIssuerFiles(cfg.DATA_DIR);
        if (cfg.OAUTH_JWKS_URL || !existsSync(files.privateKeyFile)) throw new Error('mint-token works with the embedded issuer only (npm start without OAUTH_JWKS_URL)');
        const scopes = (flags.scopes ?? 'events:read').split(',').map((s) => s.trim()).filter(Boolean);
        const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
        if (unknown.length) throw new Error(`unknown scopes ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
        const token = await mintAccessToken(readPrivateKey(files), {
          issuer: cfg.OAUTH_ISSUER,
          audience: cfg.OAUTH_AUDIENCE,
          subject: account.subject ?? `embedded|${account.id}`,
          email: account.email,
          scopes,
          expiresInSeconds: flags['expires-in'] ? intFlag(flags, 'expires-in') : 3600,
        });
        console.log(token);
        break;
      }
      case 'create-key': {
        const { apiKey, rawKey } = await keys.create(em, intFlag(flags, 'org'), {
          name: need(flags, 'name'),
          allowedHosts: flags.hosts ? flags.hosts.split(',') : [],
          rateLimit: flags['rate-limit'] ? intFlag(flags, 'rate-limit') : null,
          readOnly: flags['read-only'] === 'true',
        });
        console.log(`key ${apiKey.id} (${apiKey.prefix}...), shown once:\n${rawKey}`);
        break;
      }
      case 'list-keys':
        for (const k of await keys.list(em, intFlag(flags, 'org'))) {
          console.log(`${k.id}\t${k.prefix}...\t${k.active ? 'active' : 'inactive'}${k.readOnly ? ' read-only' : ''}\t${k.name}\thosts=${k.allowedHosts.join(',') || '*'}\tlast used ${k.lastUsedAt?.toISOString() ?? 'never'}`);
        }
        break;
      case 'deactivate-key':
      case 'activate-key':
        await keys.setActive(em, intFlag(flags, 'org'), intFlag(flags, 'key'), command === 'activate-key');
        console.log(`key ${flags.key} ${command === 'activate-key' ? 'activated' : 'deactivated'}`);
        break;
      case 'delete-key':
        await keys.delete(em, intFlag(flags, 'org'), intFlag(flags, 'key'));
        console.log(`key ${flags.key} deleted`);
        break;
      case 'import-photos':
        await importFolder(orm, cfg, flags);
        break;
      case 'add-video':
        await addVideo(orm, cfg, flags);
        break;
      case 'reembed-faces':
        await reembedFaces(orm, cfg, flags);
        break;
      default:
        throw new Error(`unknown command ${command}\n${HELP}`);
    }
  } finally {
    keyChanges.close();
    await orm.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
