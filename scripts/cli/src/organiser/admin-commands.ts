import { embeddedSignIn, setPasswordLinkFor } from './set-password';
import type { EventView } from '@em/subgraph-events';
import { Command, table } from './command';
import { coverFile, EVENT_FLAG_NAMES, EVENT_OPTIONS, eventInput, FEATURE_FLAGS } from './event-flags';
import { need, positiveInt } from './flags';
import { progress } from './progress';

const flagsOf = (e: EventView) =>
  Object.entries(FEATURE_FLAGS)
    .filter(([, key]) => e[key])
    .map(([name]) => name)
    .join(',') || 'none';
const eventLine = (e: EventView) =>
  `event ${e.id} "${e.name}" (${e.slug}) ${e.status}${e.enabled ? '' : ' disabled'}, date ${e.eventDate ?? 'none'} ${e.timeZone}, flags ${flagsOf(e)}, threshold ${e.confidenceThreshold ?? 'default'}`;

/** Administration commands: organisations, events, members, usage (the services of the events subgraph). */
export const ADMIN_COMMANDS: Record<string, Command> = {
  'create-admin': {
    usage: 'create-admin --email E',
    summary: 'makes the account of E (created when missing) a platform administrator: it may create organisations',
    flags: ['email'],
    async run({ services, operator }, flags) {
      const account = await services.account.grantPlatformAdmin(operator, need(flags, 'email'));
      return { json: account, text: `platform administrator ${account.id} <${account.email}>` };
    },
  },
  'create-org': {
    usage: 'create-org --name N [--slug S] [--admin-email E]',
    summary: 'creates an organisation; E (an account, created when missing) becomes its admin',
    flags: ['name', 'slug', 'admin-email'],
    async run({ services, operator }, flags) {
      const org = await services.organisations.create(operator, { name: need(flags, 'name'), slug: flags.slug });
      const admin = flags['admin-email']
        ? await services.members.invite(operator, org.id, flags['admin-email'], 'admin')
        : null;
      return {
        json: { ...org, admin },
        text: `organisation ${org.id} "${org.name}" (${org.slug})${admin ? `; admin <${admin.email}> ${admin.status}` : ''}`,
      };
    },
  },
  'list-orgs': {
    usage: 'list-orgs',
    summary: 'every organisation',
    flags: [],
    async run({ services, operator }) {
      const orgs = await services.organisations.list(operator);
      return { json: orgs, text: table(orgs.map((o) => [o.id, o.slug, o.name])) };
    },
  },
  'rename-org': {
    usage: 'rename-org --org ID --name N',
    summary: 'renames an organisation (its slug stays)',
    flags: ['org', 'name'],
    async run({ services, operator }, flags) {
      const org = await services.organisations.rename(operator, positiveInt(flags, 'org'), need(flags, 'name'));
      return { json: org, text: `organisation ${org.id} is now "${org.name}"` };
    },
  },
  'create-event': {
    usage: `create-event --org ID --name N ${EVENT_OPTIONS}`,
    summary: 'creates an event (a draft unless --status active); prints its id',
    flags: ['org', ...EVENT_FLAG_NAMES],
    async run({ services, operator }, flags) {
      const orgId = positiveInt(flags, 'org');
      need(flags, 'name');
      const cover = coverFile(flags);
      let event = await services.eventAdmin.create(operator, orgId, eventInput(flags));
      if (cover) event = await services.covers.set(operator, orgId, event.id, cover);
      return { json: event, text: `${event.id}\n${eventLine(event)}` };
    },
  },
  'update-event': {
    usage: `update-event --org ID --event ID ${EVENT_OPTIONS}`,
    summary: 'changes settings of an event; the REST API sees them at once',
    flags: ['org', 'event', ...EVENT_FLAG_NAMES],
    async run({ services, operator }, flags) {
      const [orgId, eventId] = [positiveInt(flags, 'org'), positiveInt(flags, 'event')];
      const cover = coverFile(flags);
      let event = await services.eventAdmin.update(operator, orgId, eventId, eventInput(flags));
      if (cover) event = await services.covers.set(operator, orgId, eventId, cover);
      return { json: event, text: eventLine(event) };
    },
  },
  'list-events': {
    usage: 'list-events --org ID',
    summary: "the organisation's events, latest first",
    flags: ['org'],
    async run({ services, operator }, flags) {
      const orgId = positiveInt(flags, 'org');
      const events: EventView[] = [];
      for (let page = 1; ; page++) {
        const found = await services.events.list(operator, orgId, page, 100);
        events.push(...found.items);
        if (!found.pageInfo.hasNextPage) break;
      }
      return { json: events, text: events.map(eventLine).join('\n') || 'no events' };
    },
  },
  'archive-event': {
    usage: 'archive-event --org ID --event ID',
    summary: 'sets an event archived',
    flags: ['org', 'event'],
    async run({ services, operator }, flags) {
      const event = await services.eventAdmin.archive(operator, positiveInt(flags, 'org'), positiveInt(flags, 'event'));
      return { json: event, text: eventLine(event) };
    },
  },
  'delete-event': {
    usage: 'delete-event --org ID --event ID --yes [--wait]',
    summary:
      'deletes an event for good: hidden at once, then the ml-worker removes its photos, videos, clips and rows (--wait follows it)',
    flags: ['org', 'event', 'yes', 'wait'],
    async run({ services, operator }, flags) {
      const [orgId, eventId] = [positiveInt(flags, 'org'), positiveInt(flags, 'event')];
      if (flags.yes !== 'true')
        throw new Error('delete-event removes the event, its photos, videos and clips for good: add --yes');
      let status = await services.eventAdmin.delete(operator, orgId, eventId, true);
      while (flags.wait === 'true' && status.state !== 'done' && status.state !== 'failed') {
        progress('delete ', status.objectsDeleted, status.objectsFound, status.state);
        await new Promise((r) => setTimeout(r, 500));
        status = await services.eventAdmin.deletionStatus(operator, orgId, eventId);
      }
      if (process.stdout.isTTY && flags.wait === 'true') process.stdout.write('\n');
      if (status.state === 'failed')
        throw new Error(`the deletion of event ${eventId} failed; run delete-event again to retry`);
      return {
        json: status,
        text: `event ${eventId}: deletion ${status.state} (${status.objectsDeleted}/${status.objectsFound} objects)`,
      };
    },
  },
  'deletion-status': {
    usage: 'deletion-status --org ID --event ID',
    summary: 'how far the deletion of an event is',
    flags: ['org', 'event'],
    async run({ services, operator }, flags) {
      const status = await services.eventAdmin.deletionStatus(
        operator,
        positiveInt(flags, 'org'),
        positiveInt(flags, 'event'),
      );
      return {
        json: status,
        text: `event ${status.eventId}: deletion ${status.state}, ${status.percent}% (${status.objectsDeleted}/${status.objectsFound} objects)`,
      };
    },
  },
  invite: {
    usage: 'invite --org ID --email E --role admin|user',
    summary:
      'invites E into the organisation (pending until that account first signs in); prints their set-password link with the embedded provider',
    flags: ['org', 'email', 'role'],
    async run(ctx, flags) {
      const { services, operator } = ctx;
      const member = await services.members.invite(
        operator,
        positiveInt(flags, 'org'),
        need(flags, 'email'),
        need(flags, 'role'),
      );
      const text = `account ${member.accountId} <${member.email}> ${member.role}, ${member.status}`;
      // With the embedded identity provider the new member needs a password: the link goes to them.
      if (!embeddedSignIn(ctx.cfg)) return { json: member, text };
      const link = await setPasswordLinkFor(ctx, member.email);
      return {
        json: { ...member, setPasswordUrl: link.url },
        text: `${text}\nset-password link (send it to them; works once, until ${link.expiresAt.toISOString()}):\n${link.url}`,
      };
    },
  },
  members: {
    usage: 'members --org ID',
    summary: 'members and invitations of the organisation',
    flags: ['org'],
    async run({ services, operator }, flags) {
      const members = await services.members.list(operator, positiveInt(flags, 'org'));
      return { json: members, text: table(members.map((m) => [m.accountId, m.email, m.role, m.status])) };
    },
  },
  'set-role': {
    usage: 'set-role --org ID --account ID --role admin|user',
    summary: "changes a member's role (the last admin stays)",
    flags: ['org', 'account', 'role'],
    async run({ services, operator }, flags) {
      const member = await services.members.setRole(
        operator,
        positiveInt(flags, 'org'),
        positiveInt(flags, 'account'),
        need(flags, 'role'),
      );
      return { json: member, text: `account ${member.accountId} <${member.email}> is ${member.role}` };
    },
  },
  'remove-member': {
    usage: 'remove-member --org ID --account ID',
    summary: 'removes a member or an invitation (the last admin stays)',
    flags: ['org', 'account'],
    async run({ services, operator }, flags) {
      await services.members.remove(operator, positiveInt(flags, 'org'), positiveInt(flags, 'account'));
      return { json: { removed: true }, text: `account ${flags.account} removed` };
    },
  },
  usage: {
    usage: 'usage --org ID [--from YYYY-MM-DD] [--to YYYY-MM-DD]',
    summary:
      'per event and month: face searches billed (new request_ids), photos processed, videos indexed, clips made',
    flags: ['org', 'from', 'to'],
    async run({ services, operator }, flags) {
      const date = (name: string) => {
        if (!flags[name]) return null;
        if (!/^\d{4}-\d{2}-\d{2}$/.test(flags[name]) || Number.isNaN(Date.parse(`${flags[name]}T00:00:00Z`)))
          throw new Error(`--${name} must be a date YYYY-MM-DD`);
        return new Date(`${flags[name]}T00:00:00Z`);
      };
      const report = await services.usage.report(operator, positiveInt(flags, 'org'), date('from'), date('to'));
      const rows = report.rows.map((r) => [
        r.month,
        r.eventId,
        r.faceSearchesBilled,
        r.photosProcessed,
        r.videosIndexed,
        r.clipsMade,
      ]);
      const t = report.totals;
      return {
        json: report,
        text: table([
          ['month', 'event', 'searches', 'photos', 'videos', 'clips'],
          ...rows,
          ['total', '', t.faceSearchesBilled, t.photosProcessed, t.videosIndexed, t.clipsMade],
        ]),
      };
    },
  },
};
