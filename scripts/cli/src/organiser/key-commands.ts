import { embeddedIssuerFiles, mintAccessToken, readPrivateKey, SCOPES } from '@em/core';
import { setPasswordLinkFor } from './set-password';
import { existsSync } from 'node:fs';
import { Command, table } from './command';
import { list, need, positiveInt } from './flags';

const role = (value: string | undefined) => {
  if (value !== 'admin' && value !== 'user') throw new Error('--role is admin or user');
  return value;
};

/** `--events 1,4`: positive integers, at least one. */
function eventIdList(value: string): number[] {
  const ids = list(value).map((v) => (/^[1-9]\d{0,9}$/.test(v) ? Number(v) : NaN));
  if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id))) {
    throw new Error('--events is a list of event ids, e.g. --events 1,4');
  }
  return ids;
}

/** Accounts, tokens of the embedded issuer, API keys, and the photo and video imports. */
export const KEY_COMMANDS: Record<string, Command> = {
  'create-account': {
    usage: 'create-account --email E [--org ID --role admin|user]',
    summary: 'an account (and its active membership)',
    flags: ['email', 'org', 'role'],
    async run({ services }, flags) {
      const account = await services.repos.accounts.findOrCreate(need(flags, 'email').trim().toLowerCase());
      if (flags.org) {
        const orgId = positiveInt(flags, 'org');
        if (!(await services.repos.organisations.findById(orgId))) throw new Error(`no organisation ${orgId}`);
        await services.repos.memberships.upsert(orgId, account.id, role(flags.role ?? 'user'), 'active');
      }
      return { json: account, text: `account ${account.id} <${account.email}>` };
    },
  },
  'set-password': {
    usage: 'set-password --email E',
    summary:
      'a one-time link for E to set a password at the embedded identity provider (the account is created when missing)',
    flags: ['email'],
    async run(ctx, flags) {
      const link = await setPasswordLinkFor(ctx, need(flags, 'email'));
      return {
        json: link,
        text: `set-password link for <${link.email}> (valid until ${link.expiresAt.toISOString()}; works once):\n${link.url}`,
      };
    },
  },
  'mint-token': {
    usage: 'mint-token --email E [--scopes events:read,events:write] [--expires-in SECONDS]',
    summary: 'an access token of the embedded issuer (npm start without OAUTH_JWKS_URL)',
    flags: ['email', 'scopes', 'expires-in'],
    async run({ cfg, services }, flags) {
      const email = need(flags, 'email').toLowerCase();
      const account = await services.repos.accounts.findByEmail(email);
      if (!account) throw new Error(`no account ${email}: create it with create-account, create-admin or invite`);
      const files = embeddedIssuerFiles(cfg.DATA_DIR);
      if (cfg.OAUTH_JWKS_URL || !existsSync(files.privateKeyFile))
        throw new Error('mint-token works with the embedded issuer only (npm start without OAUTH_JWKS_URL)');
      const scopes = list(flags.scopes ?? 'events:read');
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw new Error(`unknown scopes ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
      const token = await mintAccessToken(readPrivateKey(files), {
        issuer: cfg.OAUTH_ISSUER,
        audience: cfg.OAUTH_AUDIENCE,
        subject: account.subject ?? `embedded|${account.id}`,
        email: account.email,
        scopes,
        expiresInSeconds: flags['expires-in'] ? positiveInt(flags, 'expires-in') : 3600,
      });
      return { json: { token }, text: token };
    },
  },
  'create-key': {
    usage:
      'create-key --org ID --name NAME [--hosts a.example,*.b.example,203.0.113.7] [--rate-limit N] [--read-only] [--events 1,4]',
    summary: 'an API key of the organisation (limited to the --events given), shown once',
    flags: ['org', 'name', 'hosts', 'rate-limit', 'read-only', 'events'],
    async run({ services }, flags) {
      const { apiKey, rawKey } = await services.keyService.create(positiveInt(flags, 'org'), {
        name: need(flags, 'name'),
        allowedHosts: list(flags.hosts),
        rateLimit: flags['rate-limit'] ? positiveInt(flags, 'rate-limit') : null,
        // Reads and searches only: for a key that is public by nature (a participant page's browser key).
        readOnly: flags['read-only'] === 'true',
        // A participant page's key: the page's event only.
        eventIds: flags.events === undefined ? null : eventIdList(flags.events),
      });
      return { json: { key: rawKey, apiKey }, text: `key ${apiKey.id} (${apiKey.prefix}...), shown once:\n${rawKey}` };
    },
  },
  'list-keys': {
    usage: 'list-keys --org ID',
    summary: "the organisation's API keys",
    flags: ['org'],
    async run({ services }, flags) {
      const keys = await services.keyService.list(positiveInt(flags, 'org'));
      const rows = keys.map((k) => [
        k.id,
        `${k.prefix}...`,
        k.active ? 'active' : 'inactive',
        k.readOnly ? 'read-only' : 'read-write',
        k.name,
        `hosts=${k.allowedHosts.join(',') || '*'}`,
        `events=${k.eventIds?.join(',') ?? '*'}`,
        `last used ${k.lastUsedAt?.toISOString() ?? 'never'}`,
      ]);
      return { json: keys, text: table(rows) };
    },
  },
  ...Object.fromEntries(
    (['deactivate-key', 'activate-key'] as const).map((name): [string, Command] => [
      name,
      {
        usage: `${name} --org ID --key KEY_ID`,
        summary: name === 'activate-key' ? 'lets a key work again' : 'stops a key at once (403) on every gateway',
        flags: ['org', 'key'],
        async run({ services }, flags) {
          const key = await services.keyService.setActive(
            positiveInt(flags, 'org'),
            positiveInt(flags, 'key'),
            name === 'activate-key',
          );
          return { json: key, text: `key ${key.id} ${key.active ? 'activated' : 'deactivated'}` };
        },
      },
    ]),
  ),
  'delete-key': {
    usage: 'delete-key --org ID --key KEY_ID',
    summary: 'deletes a key for good',
    flags: ['org', 'key'],
    async run({ services }, flags) {
      await services.keyService.delete(positiveInt(flags, 'org'), positiveInt(flags, 'key'));
      return { json: { deleted: true }, text: `key ${flags.key} deleted` };
    },
  },
  'import-photos': {
    usage:
      'import-photos --event ID --dir FOLDER [--photographer NAME] [--no-process] [--no-go-live] [--queue-after-import]',
    // --queue-after-import: the older order (every file imported before the first is processed), kept for the ingest bench's comparison.
    summary:
      'imports a folder (recursively), processes it with the ml-worker as it goes and publishes it (go-live), with progress',
    flags: ['event', 'dir', 'photographer', 'no-process', 'no-go-live', 'queue-after-import'],
    standalone: true,
    async run({ orm, cfg }, flags) {
      const { importFolder } = await import('./import-folder');
      return { json: await importFolder(orm, cfg, flags), text: '' };
    },
  },
  'add-video': {
    usage: 'add-video --event ID --file VIDEO [--source-key KEY] [--no-wait]',
    summary: 'adds a video; the ml-worker indexes its faces',
    flags: ['event', 'file', 'source-key', 'no-wait'],
    standalone: true,
    async run({ orm, cfg }, flags) {
      const { addVideo } = await import('./add-video');
      await addVideo(orm, cfg, flags);
      return { json: { added: true }, text: '' };
    },
  },
  'reembed-faces': {
    usage: 'reembed-faces --event ID',
    summary: 'processes again the photos and videos whose faces are of an older descriptor version',
    flags: ['event'],
    standalone: true,
    async run({ orm, cfg }, flags) {
      const { reembedFaces } = await import('./reembed-faces');
      await reembedFaces(orm, cfg, flags);
      return { json: { queued: true }, text: '' };
    },
  },
};
