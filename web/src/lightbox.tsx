import { useEffect, useRef, useState } from 'preact/hooks';
import { Api, ImageItem } from './api';
import { DownloadTarget, Downloads } from './downloads';
import { formatTime } from './time';

interface Props {
  api: Api;
  images: ImageItem[];
  index: number;
  total: number;
  zone: string;
  onMove: (index: number) => void;
  onClose: () => void;
  onNeedMore: () => void;
}

/** The large preview: arrow keys and swipes move, Escape closes, focus returns to the grid. */
export function Lightbox({ api, images, index, total, zone, onMove, onClose, onNeedMore }: Props) {
  const image = images[index];
  const [taken, setTaken] = useState<string | null>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const touchX = useRef<number | null>(null);
  const hasPrev = index > 0;
  const hasNext = index < total - 1;
  const move = (step: number) => {
    const next = index + step;
    if (next < 0 || next >= total) return;
    if (next >= images.length - 3) onNeedMore();
    if (next < images.length) onMove(next);
  };

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.querySelector<HTMLElement>('.close')?.focus();
    document.body.classList.add('no-scroll');
    return () => {
      document.body.classList.remove('no-scroll');
      opener?.focus();
    };
  }, []);

  useEffect(() => {
    setTaken(null);
    let live = true;
    api.photo(image.image_id).then(
      (d) =>
        live &&
        setTaken(
          d.meta_info.photo_timestamp
            ? `Taken at ${formatTime(new Date(d.meta_info.photo_timestamp * 1000), zone)}`
            : 'Capture time unknown',
        ),
      () => live && setTaken(null),
    );
    return () => {
      live = false;
    };
  }, [image.image_id]);

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowLeft') move(-1);
    else if (e.key === 'ArrowRight') move(1);
    else if (e.key === 'Escape') onClose();
    else if (e.key === 'Tab') trapFocus(e, dialog.current);
  };
  const target: DownloadTarget = { method: 'image_id', identifier: image.image_id };

  return (
    <div
      class="lightbox"
      role="dialog"
      aria-modal="true"
      aria-label={`Photo ${index + 1} of ${total}`}
      ref={dialog}
      onKeyDown={onKey}
      onTouchStart={(e) => (touchX.current = e.touches[0].clientX)}
      onTouchEnd={(e) => {
        if (touchX.current === null) return;
        const dx = e.changedTouches[0].clientX - touchX.current;
        touchX.current = null;
        if (Math.abs(dx) > 50) move(dx < 0 ? 1 : -1);
      }}
    >
      <div class="lightbox-bar">
        <p class="lightbox-title">
          Photo {index + 1} of {total}
          {taken && <span class="taken"> · {taken}</span>}
        </p>
        <div class="lightbox-actions">
          <Downloads key={image.image_id} api={api} all={target} total={1} selected={[]} onClear={() => {}} compact />
          <button type="button" class="close" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <figure class="stage">
        <img
          src={image.img_url}
          alt={`Photo ${index + 1} of ${total}, large preview`}
          width={image.width}
          height={image.height}
        />
      </figure>
      <div class="lightbox-bar lightbox-nav">
        <button type="button" onClick={() => move(-1)} disabled={!hasPrev}>
          ← Previous
        </button>
        <button type="button" onClick={() => move(1)} disabled={!hasNext}>
          Next →
        </button>
      </div>
    </div>
  );
}

function trapFocus(e: KeyboardEvent, root: HTMLElement | null) {
  if (!root) return;
  const items = [...root.querySelectorAll<HTMLElement>('button:not([disabled]), a[href]')];
  if (items.length === 0) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}
