import type { PhotoReviewService, ReviewQueuePage } from '@em/subgraph-images';
import { Command, CommandContext, table } from './command';
import { need, positiveInt } from './flags';

/** The organisation of the event (the services take both, as the API does). */
async function orgOf({ services }: CommandContext, eventId: number): Promise<number> {
  const event = await services.repos.events.findById(eventId);
  if (!event) throw new Error(`no event ${eventId}`);
  return event.organisation.id;
}

/** The event, its organisation and the photo a photo command names. */
async function target(ctx: CommandContext, flags: Record<string, string>) {
  const eventId = positiveInt(flags, 'event');
  return { orgId: await orgOf(ctx, eventId), eventId, photoId: need(flags, 'photo') };
}

type PhotoDetails = Awaited<ReturnType<PhotoReviewService['photo']>>;

/** A photo with its review fields, as `photo show` prints it. */
async function details(ctx: CommandContext, photo: PhotoDetails) {
  const [bibs, faces] = await Promise.all([ctx.review.bibsOf([photo.id]), ctx.review.facesOf([photo.id])]);
  return {
    id: photo.id,
    eventId: photo.eventId,
    hidden: photo.hidden ?? false,
    originalFileName: photo.meta.originalFileName,
    largeUrl: photo.largeUrl,
    bibs: bibs.map((b) => ({
      number: b.bib,
      readText: b.readText,
      confidence: b.confidence,
      source: b.source,
      status: b.status,
      box: b.box,
    })),
    faces: faces.map((f) => ({ box: f.box, quality: f.quality })),
  };
}

const bibLine = (b: { number: string; status: string; source: string; readText: string | null; confidence: number }) =>
  `${b.number}\t${b.status}\t${b.source}\t${b.readText ?? '-'}\t${b.confidence.toFixed(2)}`;

function describe(shown: Awaited<ReturnType<typeof details>>): string {
  const head = `photo ${shown.id} (${shown.originalFileName})${shown.hidden ? ' HIDDEN' : ''}\n${shown.largeUrl}`;
  const bibs = shown.bibs.length
    ? `bibs (number, status, source, read, confidence):\n${shown.bibs.map(bibLine).join('\n')}`
    : 'no bib';
  return `${head}\n${bibs}\n${shown.faces.length} faces`;
}

/** A photo command that changes the photo, then shows it. */
const change = (
  usage: string,
  summary: string,
  flags: string[],
  act: (
    review: PhotoReviewService,
    orgId: number,
    eventId: number,
    photoId: string,
    flags: Record<string, string>,
    ctx: CommandContext,
  ) => Promise<PhotoDetails>,
): Command => ({
  usage,
  summary,
  flags,
  async run(ctx, given) {
    const { orgId, eventId, photoId } = await target(ctx, given);
    const shown = await details(ctx, await act(ctx.review, orgId, eventId, photoId, given, ctx));
    return { json: shown, text: describe(shown) };
  },
});

/** The organiser's photo review: a photo's bibs and faces, adding and removing bibs, hiding, deleting, the review queue. */
export const PHOTO_COMMANDS: Record<string, Command> = {
  photo: {
    usage: 'photo show|hide|unhide|delete|add-bib|remove-bib --event ID --photo ID [--bib N]',
    summary: "a photo's bibs and faces; add or remove a bib, hide, unhide or delete it (recorded in the audit log)",
    flags: ['event', 'photo', 'bib', 'action'],
    async run(ctx, flags) {
      const action = flags.action;
      const sub =
        action && Object.prototype.hasOwnProperty.call(PHOTO_ACTIONS, action) ? PHOTO_ACTIONS[action] : undefined;
      if (!sub) throw new Error('photo needs an action: show, hide, unhide, delete, add-bib or remove-bib');
      const unknown = Object.keys(flags).filter((f) => f !== 'json' && f !== 'action' && !sub.flags.includes(f));
      if (unknown.length)
        throw new Error(`photo ${action} does not take --${unknown.join(', --')} (usage: ${sub.usage})`);
      return sub.run(ctx, flags);
    },
  },
  'review-queue': {
    usage: 'review-queue --event ID [--first N] [--after CURSOR]',
    summary: 'processed photos to review: no bib, a rejected read or a completed one (a page, with the next cursor)',
    flags: ['event', 'first', 'after'],
    async run(ctx, flags) {
      const eventId = positiveInt(flags, 'event');
      const first = flags.first ? positiveInt(flags, 'first') : null;
      const page: ReviewQueuePage = await ctx.review.queue(
        ctx.operator,
        await orgOf(ctx, eventId),
        eventId,
        first,
        flags.after ?? null,
      );
      const json = {
        items: page.items.map((i) => ({
          photoId: i.photo.id,
          originalFileName: i.photo.meta.originalFileName,
          reasons: i.reasons,
        })),
        endCursor: page.endCursor,
        hasNextPage: page.hasNextPage,
      };
      const rows = json.items.map((i) => [i.photoId, i.originalFileName, i.reasons.join(',')]);
      const more = page.hasNextPage ? `\nmore: review-queue --event ${eventId} --after ${page.endCursor}` : '';
      return { json, text: (rows.length ? table(rows) : 'nothing to review') + more };
    },
  },
};

/** The actions of `photo` (its first word). */
const PHOTO_ACTIONS: Record<string, Command> = {
  show: change(
    'photo show --event ID --photo ID',
    "the photo's bibs and faces",
    ['event', 'photo'],
    (r, o, e, p, _f, ctx) => r.photo(ctx.operator, o, e, p),
  ),
  hide: change(
    'photo hide --event ID --photo ID',
    'hides it from participants at once',
    ['event', 'photo'],
    (r, o, e, p, _f, ctx) => r.hide(ctx.operator, o, e, p),
  ),
  unhide: change('photo unhide --event ID --photo ID', 'shows it again', ['event', 'photo'], (r, o, e, p, _f, ctx) =>
    r.unhide(ctx.operator, o, e, p),
  ),
  'add-bib': change(
    'photo add-bib --event ID --photo ID --bib N',
    'participants find it by N',
    ['event', 'photo', 'bib'],
    (r, o, e, p, f, ctx) => r.addBib(ctx.operator, o, e, p, need(f, 'bib')),
  ),
  'remove-bib': change(
    'photo remove-bib --event ID --photo ID --bib N',
    'participants no longer find it by N',
    ['event', 'photo', 'bib'],
    (r, o, e, p, f, ctx) => r.removeBib(ctx.operator, o, e, p, need(f, 'bib')),
  ),
  delete: {
    usage: 'photo delete --event ID --photo ID',
    summary: 'deletes the original, previews, bibs and faces',
    flags: ['event', 'photo'],
    async run(ctx, flags) {
      const { orgId, eventId, photoId } = await target(ctx, flags);
      const deleted = await ctx.review.delete(ctx.operator, orgId, eventId, photoId);
      return { json: deleted, text: `photo ${deleted.id} deleted` };
    },
  },
};
