import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'events' }
  | { page: 'event-settings'; eventId: number }
  | { page: 'event-photos'; eventId: number }
  | { page: 'event-review'; eventId: number }
  | { page: 'event-videos'; eventId: number }
  | { page: 'event-start-list'; eventId: number }
  | { page: 'developer' }
  | { page: 'members' }
  | { page: 'usage' }
  | { page: 'signed-out' };

type EventPage = 'settings' | 'photos' | 'review' | 'videos' | 'start-list';

/** The page of a path under /dashboard/ (every page has its own URL). */
export function parseRoute(pathname: string): Route {
  const event = /^\/dashboard\/events\/(\d{1,9})\/(settings|photos|review|videos|start-list)\/?$/.exec(pathname);
  if (event) return { page: `event-${event[2] as EventPage}`, eventId: Number(event[1]) };
  const top = /^\/dashboard\/(developer|members|usage)\/?$/.exec(pathname);
  if (top) return { page: top[1] as 'developer' | 'members' | 'usage' };
  if (/^\/dashboard\/signed-out\/?$/.test(pathname)) return { page: 'signed-out' };
  return { page: 'events' };
}

export function navigate(path: string): void {
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(parseRoute(location.pathname));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  return route;
}

/** A link that changes the page without reloading. */
export function onLink(e: MouseEvent, path: string): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  navigate(path);
}
