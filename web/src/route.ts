// Where the page is (org and event from the path), what it shows (the query string) and its key
// (the link's fragment, never sent to a server).

export type View =
  | { kind: 'all' }
  | { kind: 'bib'; bib: string }
  | { kind: 'selfie'; requestId: string }
  | { kind: 'time'; day: string; hour: number | null };

export function readEventPath(pathname: string): { orgId: number; eventId: number } | null {
  const m = /^\/events\/(\d{1,9})\/(\d{1,9})\/?$/.exec(pathname);
  return m ? { orgId: Number(m[1]), eventId: Number(m[2]) } : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function readView(search: string): View {
  const q = new URLSearchParams(search);
  const bib = q.get('bib')?.trim();
  if (bib) return { kind: 'bib', bib: bib.slice(0, 32) };
  const requestId = q.get('selfie');
  if (requestId && UUID.test(requestId)) return { kind: 'selfie', requestId };
  const day = q.get('day');
  if (day && /^\d{4}-\d{2}-\d{2}$/.test(day)) {
    const hour = Number(q.get('hour'));
    return { kind: 'time', day, hour: q.has('hour') && Number.isInteger(hour) && hour >= 0 && hour < 24 ? hour : null };
  }
  return { kind: 'all' };
}

export function viewSearch(view: View): string {
  const q = new URLSearchParams();
  if (view.kind === 'bib') q.set('bib', view.bib);
  if (view.kind === 'selfie') q.set('selfie', view.requestId);
  if (view.kind === 'time') {
    q.set('day', view.day);
    if (view.hour !== null) q.set('hour', String(view.hour));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const viewId = (view: View) => viewSearch(view) || 'all';

/**
 * The browser key: the organiser's link carries it in the fragment (`#key=...`), which browsers never
 * send to a server nor put in a Referer. It is kept in this tab's session so in-page navigation and
 * reloads keep working; shared links keep the fragment.
 */
export function readKey(hash: string, storage: Storage | null, eventRef: string): string | null {
  const fromHash = new URLSearchParams(hash.replace(/^#/, '')).get('key');
  const slot = `em-key:${eventRef}`;
  if (fromHash) {
    try {
      storage?.setItem(slot, fromHash);
    } catch {
      /* storage disabled: the fragment still works */
    }
    return fromHash;
  }
  try {
    return storage?.getItem(slot) ?? null;
  } catch {
    return null;
  }
}
