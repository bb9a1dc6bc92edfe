import { useEffect, useState } from 'preact/hooks';
import { gql, gqlPartial } from './api';
import { navigate, onLink } from './route';
import { Messages } from './messages';

interface EventRow {
  id: number;
  name: string;
  status: string;
  eventDate: string | null;
  /** Null when the caller may not read them (the server says why). */
  photoCounts: { total: number; live: number } | null;
  videoCounts: { total: number } | null;
}

// One request: the events with their counts, which the images and media subgraphs add to each event.
const EVENTS = `query($orgId: Int!) { events(orgId: $orgId, pageSize: 100) {
  items { id name status eventDate photoCounts { total live } videoCounts { total } } } }`;

/** Events of the organisation with status, date and photo/video counts; a new event. */
export function EventsPage({ org }: { org: { id: number; name: string; role: string | null } }) {
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [date, setDate] = useState('');

  async function load() {
    try {
      const { data } = await gqlPartial<{ events: { items: EventRow[] } }>(EVENTS, { orgId: org.id });
      setEvents(data.events.items);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  useEffect(() => void load(), [org.id]);

  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const input: Record<string, unknown> = { name };
      if (date) input.eventDate = date;
      const data = await gql<{ createEvent: { id: number } }>(
        'mutation($orgId: Int!, $input: EventInput!) { createEvent(orgId: $orgId, input: $input) { id } }',
        { orgId: org.id, input },
      );
      navigate(`/dashboard/events/${data.createEvent.id}/settings`);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <section>
      <h1>Events of {org.name}</h1>
      <Messages error={error} />
      {!events ? (
        <p>Loading…</p>
      ) : events.length === 0 ? (
        <p>No events yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Date</th>
                <th scope="col">Photos (live)</th>
                <th scope="col">Videos</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td data-label="Event">{e.name}</td>
                  <td data-label="Status">
                    <span class={`status status-${e.status}`}>{e.status}</span>
                  </td>
                  <td data-label="Date">{e.eventDate?.slice(0, 10) ?? '—'}</td>
                  <td data-label="Photos">{e.photoCounts ? `${e.photoCounts.total} (${e.photoCounts.live})` : '—'}</td>
                  <td data-label="Videos">{e.videoCounts?.total ?? '—'}</td>
                  <td class="actions">
                    <a
                      href={`/dashboard/events/${e.id}/settings`}
                      onClick={(ev) => onLink(ev, `/dashboard/events/${e.id}/settings`)}
                    >
                      Settings<span class="visually-hidden"> of {e.name}</span>
                    </a>
                    <a
                      href={`/dashboard/events/${e.id}/photos`}
                      onClick={(ev) => onLink(ev, `/dashboard/events/${e.id}/photos`)}
                    >
                      Photos<span class="visually-hidden"> of {e.name}</span>
                    </a>
                    <a
                      href={`/dashboard/events/${e.id}/review`}
                      onClick={(ev) => onLink(ev, `/dashboard/events/${e.id}/review`)}
                    >
                      Review<span class="visually-hidden"> of {e.name}</span>
                    </a>
                    <a
                      href={`/dashboard/events/${e.id}/videos`}
                      onClick={(ev) => onLink(ev, `/dashboard/events/${e.id}/videos`)}
                    >
                      Videos<span class="visually-hidden"> of {e.name}</span>
                    </a>
                    <a
                      href={`/dashboard/events/${e.id}/start-list`}
                      onClick={(ev) => onLink(ev, `/dashboard/events/${e.id}/start-list`)}
                    >
                      Start list<span class="visually-hidden"> of {e.name}</span>
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {org.role !== 'user' && (
        <form class="card" onSubmit={(e) => void create(e)}>
          <h2>New event</h2>
          <label for="new-name">Name</label>
          <input
            id="new-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <label for="new-date">Date</label>
          <input
            id="new-date"
            type="date"
            value={date}
            onInput={(e) => setDate((e.target as HTMLInputElement).value)}
          />
          <button class="primary" type="submit">
            Create event
          </button>
        </form>
      )}
    </section>
  );
}
