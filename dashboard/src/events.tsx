import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, gqlPartial } from './api';
import { EVENT_PAGES } from './event-nav';
import { latestAnswer } from './latest-answer';
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

interface PageInfo {
  total: number;
  currentPage: number;
  totalPages: number;
}

/** Events a page: the API's largest page, so that most organisations see every event at once. */
const EVENTS_PER_PAGE = 100;
// One request: a page of events with their counts, which the images and media subgraphs add to each event.
const EVENTS = `query($orgId: Int!, $page: Int!) { events(orgId: $orgId, page: $page, pageSize: ${EVENTS_PER_PAGE}) {
  items { id name status eventDate photoCounts { total live } videoCounts { total } }
  pageInfo { total currentPage totalPages } } }`;

/** The page of events the address asks for (`?page=N`), 1 when it asks for none or nonsense. */
function pageInAddress(): number {
  const page = Number(new URLSearchParams(location.search).get('page'));
  return Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1;
}

const eventsAddress = (page: number) => (page === 1 ? '/dashboard/events' : `/dashboard/events?page=${page}`);

/** Events of the organisation with status, date and photo/video counts; a new event. */
export function EventsPage({ org }: { org: { id: number; name: string; role: string | null } }) {
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [pageInfo, setPageInfo] = useState<PageInfo | null>(null);
  const [page, setPage] = useState(pageInAddress);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [date, setDate] = useState('');

  // Next clicked twice quickly: only the answer for the page asked last is shown.
  const showLatest = useRef(
    latestAnswer<{ page: number; items: EventRow[]; info: PageInfo }>(({ page: asked, items, info }) => {
      // A page past the last (events deleted since, or a typed address): the last page instead.
      if (asked > 1 && asked > info.totalPages) {
        const last = Math.max(1, info.totalPages);
        history.replaceState(null, '', eventsAddress(last));
        setPage(last);
        return;
      }
      setEvents(items);
      setPageInfo(info);
    }),
  ).current;

  async function load() {
    try {
      await showLatest(
        gqlPartial<{ events: { items: EventRow[]; pageInfo: PageInfo } }>(EVENTS, { orgId: org.id, page }).then(
          ({ data }) => ({ page, items: data.events.items, info: data.events.pageInfo }),
        ),
      );
    } catch (err) {
      setError((err as Error).message);
    }
  }

  useEffect(() => void load(), [org.id, page]);
  // Back and forward between pages of events.
  useEffect(() => {
    const onPop = () => setPage(pageInAddress());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  function goTo(next: number) {
    history.pushState(null, '', eventsAddress(next));
    setPage(next);
  }

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
        <>
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
                    <td data-label="Photos">
                      {e.photoCounts ? `${e.photoCounts.total} (${e.photoCounts.live})` : '—'}
                    </td>
                    <td data-label="Videos">{e.videoCounts?.total ?? '—'}</td>
                    <td class="actions">
                      {EVENT_PAGES.map(([segment, label]) => {
                        const path = `/dashboard/events/${e.id}/${segment}`;
                        return (
                          <a key={segment} href={path} onClick={(ev) => onLink(ev, path)}>
                            {label}
                            <span class="visually-hidden"> of {e.name}</span>
                          </a>
                        );
                      })}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {pageInfo && pageInfo.totalPages > 1 && (
            <nav class="pager" aria-label="Pages of events">
              <button type="button" disabled={page <= 1} onClick={() => goTo(page - 1)}>
                Previous
              </button>
              <span data-testid="events-page">
                Page {pageInfo.currentPage} of {pageInfo.totalPages} ({pageInfo.total} events)
              </span>
              <button type="button" disabled={page >= pageInfo.totalPages} onClick={() => goTo(page + 1)}>
                Next
              </button>
            </nav>
          )}
        </>
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
