import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { navigate } from './route';
import { CheckboxField } from './checkbox-field';
import { LiveNotice, Messages } from './messages';

/** Every flag by its spec name, with what it does. */
const FLAGS: Array<{ field: string; spec: string; sentence: string }> = [
  {
    field: 'enabled',
    spec: 'event_enabled',
    sentence: 'Switches the whole event on; off, every search of it answers 403.',
  },
  { field: 'bibSearch', spec: 'bib_search', sentence: 'Participants find their photos by the number on their bib.' },
  {
    field: 'selfieSearch',
    spec: 'selfie_search',
    sentence: 'Participants find their photos with a selfie (face matching).',
  },
  { field: 'nameSearch', spec: 'name_search', sentence: 'Participants find their photos by their name.' },
  {
    field: 'timelineSearch',
    spec: 'timeline_search',
    sentence: 'Participants browse the photos by the time they were taken.',
  },
  { field: 'videoSearch', spec: 'video_search', sentence: 'The event’s videos are indexed and can be searched.' },
  {
    field: 'videoSelfieSearch',
    spec: 'video_selfie_search',
    sentence: 'A selfie cuts a participant’s own clips from the videos (needs video_search).',
  },
];

const NUMBERS: Array<{ field: string; label: string; step: string; optional?: boolean }> = [
  {
    field: 'confidenceThreshold',
    label: 'Face-match threshold (percent, empty = platform default)',
    step: '1',
    optional: true,
  },
  { field: 'videoSampleFps', label: 'Video frames analysed per second (0.1 to 10)', step: '0.1' },
  { field: 'clipMaxGapSeconds', label: 'Clip: largest gap joined, seconds (0 to 60)', step: '0.5' },
  { field: 'clipMinSegmentSeconds', label: 'Clip: shortest segment, seconds (0 to 60)', step: '0.5' },
  { field: 'clipPaddingStartSeconds', label: 'Clip: padding before, seconds (0 to 30)', step: '0.5' },
  { field: 'clipPaddingEndSeconds', label: 'Clip: padding after, seconds (0 to 30)', step: '0.5' },
  { field: 'clipMaxDurationSeconds', label: 'Clip: longest clip, seconds (1 to 600)', step: '1' },
  { field: 'clipRetentionHours', label: 'Clips kept, hours (empty = kept)', step: '1', optional: true },
];

const FIELDS = [
  'id',
  'name',
  'status',
  'eventDate',
  'timeZone',
  'watermarkText',
  ...FLAGS.map((f) => f.field),
  ...NUMBERS.map((n) => n.field),
].join(' ');

/** The event as the form edits it: the named fields, and every flag and number by its GraphQL name. */
type EventSettings = {
  id: number;
  name: string;
  status: string;
  eventDate: string | null;
  timeZone: string;
  watermarkText: string | null;
} & Record<string, string | number | boolean | null>;

/** An event's settings, going live, archiving and deleting it. */
export function SettingsPage({ orgId, eventId }: { orgId: number; eventId: number }) {
  const [event, setEvent] = useState<EventSettings | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deletion, setDeletion] = useState<{ state: string; percent: number } | null>(null);
  // Whether the event went live (its processed photos are published): only then is "Go live" no longer offered.
  const [live, setLive] = useState<boolean | null>(null);
  const ids = { orgId, eventId };

  useEffect(() => {
    gql<{ event: EventSettings }>(
      `query($orgId: Int!, $eventId: Int!) { event(orgId: $orgId, eventId: $eventId) { ${FIELDS} } }`,
      ids,
    )
      .then((d) => setEvent(d.event))
      .catch((err: Error) => setError(err.message));
    // Apart: a member who may read the settings but not the pipeline still gets the form (and no "Go live").
    gql<{ pipelineStatus: { isLive: boolean } }>(
      'query($orgId: Int!, $eventId: Int!) { pipelineStatus(orgId: $orgId, eventId: $eventId) { isLive } }',
      ids,
    )
      .then((d) => setLive(d.pipelineStatus.isLive))
      .catch(() => setLive(null));
  }, [orgId, eventId]);

  const set = (field: string, value: string | number | boolean | null) => setEvent((e) => ({ ...e!, [field]: value }));

  async function run(action: () => Promise<string>) {
    setError(null);
    setMessage(null);
    try {
      setMessage(await action());
    } catch (err) {
      setError((err as Error).message);
    }
  }

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const { id: _id, ...input } = event!;
      const d = await gql<{ updateEvent: EventSettings }>(
        `mutation($orgId: Int!, $eventId: Int!, $input: EventInput!) { updateEvent(orgId: $orgId, eventId: $eventId, input: $input) { ${FIELDS} } }`,
        { ...ids, input },
      );
      setEvent(d.updateEvent);
      return 'Saved: the REST API sees the change now.';
    });
  };
  const goLive = () =>
    run(async () => {
      const d = await gql<{ goLive: { published: number } }>(
        'mutation($orgId: Int!, $eventId: Int!) { goLive(orgId: $orgId, eventId: $eventId) { published } }',
        ids,
      );
      setLive(true);
      return `Live: ${d.goLive.published} photos published; new ones are published as they are processed.`;
    });
  const archive = () =>
    run(async () => {
      const d = await gql<{ archiveEvent: { status: string } }>(
        'mutation($orgId: Int!, $eventId: Int!) { archiveEvent(orgId: $orgId, eventId: $eventId) { status } }',
        ids,
      );
      set('status', d.archiveEvent.status);
      return 'Archived.';
    });
  const remove = () => {
    if (!confirm(`Delete “${event!.name}” for good, with all its photos and videos?`)) return;
    return run(async () => {
      await gql<unknown>(
        'mutation($orgId: Int!, $eventId: Int!) { deleteEvent(orgId: $orgId, eventId: $eventId, confirm: true) { state } }',
        ids,
      );
      for (;;) {
        const d = await gql<{ eventDeletion: { state: string; percent: number } }>(
          'query($orgId: Int!, $eventId: Int!) { eventDeletion(orgId: $orgId, eventId: $eventId) { state percent } }',
          ids,
        ).catch(() => null);
        const state = d?.eventDeletion ?? { state: 'done', percent: 100 };
        setDeletion(state);
        if (state.state === 'done' || state.state === 'failed') break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      navigate('/dashboard/events');
      return 'Deleted.';
    });
  };

  if (error && !event) return <Messages error={error} />;
  if (!event) return <p>Loading…</p>;
  return (
    <section>
      <h1>{event.name}: settings</h1>
      <form class="card" onSubmit={(e) => void save(e)}>
        <label for="name">Name</label>
        <input
          id="name"
          required
          value={event.name}
          onInput={(e) => set('name', (e.target as HTMLInputElement).value)}
        />
        <label for="date">Date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)</label>
        <input
          id="date"
          value={event.eventDate ?? ''}
          onInput={(e) => set('eventDate', (e.target as HTMLInputElement).value || null)}
        />
        <label for="status">Status</label>
        <select id="status" value={event.status} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}>
          <option value="draft">draft</option>
          <option value="active">active</option>
          <option value="archived">archived</option>
        </select>
        <label for="tz">Time zone (IANA, e.g. Europe/Paris)</label>
        <input id="tz" value={event.timeZone} onInput={(e) => set('timeZone', (e.target as HTMLInputElement).value)} />
        <label for="wm">Watermark text (empty = none)</label>
        <input
          id="wm"
          maxLength={100}
          value={event.watermarkText ?? ''}
          onInput={(e) => set('watermarkText', (e.target as HTMLInputElement).value || null)}
        />
        <fieldset>
          <legend>Features</legend>
          {FLAGS.map((f) => (
            <CheckboxField
              key={f.field}
              id={`flag-${f.spec}`}
              checked={!!event[f.field]}
              onChange={(checked) => set(f.field, checked)}
              label={<code>{f.spec}</code>}
              help={f.sentence}
            />
          ))}
        </fieldset>
        <fieldset>
          <legend>Faces and clips</legend>
          {NUMBERS.map((n) => (
            <div key={n.field}>
              <label for={`num-${n.field}`}>{n.label}</label>
              <input
                id={`num-${n.field}`}
                type="number"
                step={n.step}
                value={(event[n.field] as number | null) ?? ''}
                onInput={(e) => {
                  const raw = (e.target as HTMLInputElement).value;
                  set(n.field, raw === '' ? (n.optional ? null : event[n.field]) : Number(raw));
                }}
              />
            </div>
          ))}
        </fieldset>
        <button class="primary" type="submit">
          Save settings
        </button>
      </form>
      <Messages error={error} notice={message} />
      <div class="card actions-row">
        {live === false && <button onClick={() => void goLive()}>Go live</button>}
        {live && <LiveNotice />}
        {event.status !== 'archived' && <button onClick={() => void archive()}>Archive</button>}
        <button class="danger" onClick={() => void remove()}>
          Delete event
        </button>
        {deletion && (
          <p role="status">
            Deleting: {deletion.state}, {deletion.percent}%
          </p>
        )}
      </div>
    </section>
  );
}
