import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { onLink } from './route';

/** An event's pages in the dashboard: its path segment and its name. */
export const EVENT_PAGES = [
  ['settings', 'Settings'],
  ['photos', 'Photos'],
  ['review', 'Review'],
  ['videos', 'Videos'],
  ['start-list', 'Start list'],
] as const;

/** The event a page is about, and links to its other pages. */
export function EventNav({ orgId, eventId, current }: { orgId: number; eventId: number; current: string }) {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    setName(null);
    gql<{ event: { name: string } }>(
      'query($orgId: Int!, $eventId: Int!) { event(orgId: $orgId, eventId: $eventId) { name } }',
      {
        orgId,
        eventId,
      },
    )
      .then((d) => setName(d.event.name))
      // The page itself says what went wrong (not found, no access): the bar just has no name.
      .catch(() => setName(null));
  }, [orgId, eventId]);
  return (
    <nav class="event-nav" aria-label="Event">
      <strong>{name ?? `Event ${eventId}`}</strong>
      {EVENT_PAGES.map(([page, label]) => {
        const path = `/dashboard/events/${eventId}/${page}`;
        return (
          <a
            key={page}
            href={path}
            onClick={(e) => onLink(e, path)}
            aria-current={page === current ? 'page' : undefined}
          >
            {label}
          </a>
        );
      })}
    </nav>
  );
}
