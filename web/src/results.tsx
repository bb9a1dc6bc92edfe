import { useEffect, useRef, useState } from 'preact/hooks';
import { Api, ApiError, EventDetails, humanMessage, ImageItem, ImagePage, Pagination } from './api';
import { VideoMoments } from './clips';
import { DownloadTarget, Downloads } from './downloads';
import { Lightbox } from './lightbox';
import { View, viewId } from './route';
import { formatDay, formatHour, hourWindow } from './time';

interface Props {
  api: Api;
  view: View;
  details: EventDetails;
  zone: string;
  clipsOn: boolean;
  onShowAll: () => void;
}

export function loaderFor(api: Api, view: View): (page: number) => Promise<ImagePage> {
  if (view.kind === 'bib') return (p) => api.bib(view.bib, p);
  if (view.kind === 'selfie') return (p) => api.faceResult(view.requestId, p);
  if (view.kind === 'time') {
    const { from, to } = hourWindow(view.day, view.hour);
    return (p) => api.timeline(from, to, p);
  }
  return (p) => api.photos(p);
}

function titleOf(view: View, zone: string): string {
  if (view.kind === 'bib') return `Photos with BIB ${view.bib}`;
  if (view.kind === 'selfie') return 'Photos of you';
  if (view.kind === 'time') {
    const { from } = hourWindow(view.day, view.hour);
    const day = formatDay(new Date(from * 1000), 'UTC', true);
    return view.hour === null
      ? `Photos of ${day}`
      : `Photos of ${day}, from ${formatHour(new Date(from * 1000), zone)}`;
  }
  return 'All photos';
}

function emptyText(view: View): string {
  if (view.kind === 'bib') return `No photos with BIB ${view.bib} yet. Check the number, or try a selfie.`;
  if (view.kind === 'selfie')
    return 'We did not find you in the photos. Try another selfie with your face clearly visible.';
  return 'No photos here yet.';
}

function isBlocked(view: View, d: EventDetails): 'bib' | 'selfie' | 'timeline' | null {
  if (view.kind === 'bib' && !d.bib_search) return 'bib';
  if (view.kind === 'selfie' && !d.selfie_search) return 'selfie';
  if (view.kind === 'time' && !d.timeline_search) return 'timeline';
  return null;
}

export function Results({ api, view, details, zone, clipsOn, onShowAll }: Props) {
  const id = viewId(view);
  const [images, setImages] = useState<ImageItem[]>([]);
  const [pagination, setPagination] = useState<Pagination | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const state = useRef<{ id: string; loading: boolean; next: number | null }>({ id, loading: false, next: 1 });
  const sentinel = useRef<HTMLDivElement>(null);
  const blocked = isBlocked(view, details);

  const load = async () => {
    const s = state.current;
    if (s.loading || s.next === null || blocked) return;
    const forId = s.id;
    s.loading = true;
    setLoading(true);
    try {
      const pageNo = s.next;
      const page = await loaderFor(api, view)(pageNo);
      if (state.current.id !== forId) return;
      setImages((prev) => (pageNo === 1 ? page.images : [...prev, ...page.images]));
      setPagination(page.pagination);
      s.next = page.pagination.hasNextPage ? page.pagination.currentPage + 1 : null;
    } catch (e) {
      if (state.current.id === forId) {
        setError((e as ApiError).message);
        s.next = null;
      }
    } finally {
      if (state.current.id === forId) {
        s.loading = false;
        setLoading(false);
      }
    }
  };

  useEffect(() => {
    state.current = { id, loading: false, next: 1 };
    setImages([]);
    setPagination(null);
    setError(null);
    setOpen(null);
    setSelected(new Set());
    void load();
  }, [id, api]);

  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void load(), {
      rootMargin: '800px 0px',
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [id, images.length]);

  if (blocked) {
    return (
      <section class="results" aria-labelledby="results-title">
        <h2 id="results-title">{titleOf(view, zone)}</h2>
        <p class="error" role="alert">
          {humanMessage(403, blocked)}
        </p>
        <button type="button" onClick={onShowAll}>
          Show all photos
        </button>
      </section>
    );
  }

  const toggle = (imageId: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(imageId)) next.delete(imageId);
      else next.add(imageId);
      return next;
    });
  const total = pagination?.total ?? 0;
  const all: DownloadTarget | null =
    view.kind === 'bib'
      ? { method: 'bib', identifier: view.bib }
      : view.kind === 'selfie'
        ? { method: 'selfie', identifier: view.requestId }
        : null;

  return (
    <section class="results" aria-labelledby="results-title" aria-busy={loading}>
      <div class="results-head">
        <h2 id="results-title">{titleOf(view, zone)}</h2>
        {pagination && (
          <p class="count" role="status">
            {total === 1 ? '1 photo' : `${total} photos`}
          </p>
        )}
        {view.kind !== 'all' && (
          <button type="button" class="link" onClick={onShowAll}>
            Show all photos
          </button>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {pagination && total === 0 && !error && <p class="empty">{emptyText(view)}</p>}
      {total > 0 && (
        <Downloads api={api} all={all} total={total} selected={[...selected]} onClear={() => setSelected(new Set())} />
      )}
      {view.kind === 'selfie' && clipsOn && <VideoMoments api={api} requestId={view.requestId} />}
      <ul class="grid">
        {images.map((img, i) => (
          <li key={img.image_id} class={selected.has(img.image_id) ? 'tile picked' : 'tile'}>
            <button
              type="button"
              class="thumb"
              onClick={() => setOpen(i)}
              aria-label={`Photo ${i + 1} of ${total}: open larger`}
            >
              <img
                src={img.thumbnail_url}
                alt=""
                loading={i < 6 ? 'eager' : 'lazy'}
                decoding="async"
                width={img.width}
                height={img.height}
              />
            </button>
            <label class="pick">
              <input type="checkbox" checked={selected.has(img.image_id)} onChange={() => toggle(img.image_id)} />
              <span class="sr-only">Select photo {i + 1} for download</span>
            </label>
          </li>
        ))}
      </ul>
      <div ref={sentinel} class="sentinel" />
      {loading && (
        <p role="status" class="loading">
          Loading photos…
        </p>
      )}
      {!loading && pagination?.hasNextPage && (
        <button type="button" class="more" onClick={() => void load()}>
          Load more photos
        </button>
      )}
      {open !== null && images[open] && (
        <Lightbox
          api={api}
          images={images}
          index={open}
          total={total}
          zone={zone}
          onMove={setOpen}
          onClose={() => setOpen(null)}
          onNeedMore={() => void load()}
        />
      )}
    </section>
  );
}
