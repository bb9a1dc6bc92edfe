import { useState } from 'preact/hooks';
import { Api, ApiError } from './api';

export type DownloadTarget =
  { method: 'bib' | 'selfie' | 'image_id'; identifier: string } | { method: 'image_ids'; identifier: string[] };
interface Link {
  url: string;
  filename: string;
}

interface Props {
  api: Api;
  all: DownloadTarget | null;
  total: number;
  selected: string[];
  onClear: () => void;
  compact?: boolean;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts one browser download (the presigned link answers with Content-Disposition: attachment). */
function triggerDownload(link: Link) {
  const a = document.createElement('a');
  a.href = link.url;
  a.download = link.filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/**
 * Originals through POST /original-photos: the presigned links are asked page by page, then the
 * files are downloaded one at a time, with the progress shown; the links stay listed for a retry.
 */
export function Downloads({ api, all, total, selected, onClear, compact }: Props) {
  const [links, setLinks] = useState<Link[]>([]);
  const [expected, setExpected] = useState(0);
  const [done, setDone] = useState(0);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const start = async (target: DownloadTarget) => {
    setBusy(true);
    setError(null);
    setLinks([]);
    setDone(0);
    const found: Link[] = [];
    let failed = 0;
    try {
      for (let page = 1; ; page++) {
        const d = await api.originals(target.method, target.identifier, page);
        found.push(...d.presigned_urls);
        failed += d.failed_urls.length;
        setExpected(d.total_images);
        setStatus(`Preparing your files: ${found.length} of ${d.total_images}`);
        if (!d.pagination.hasNextPage) break;
      }
      setLinks([...found]);
      for (let i = 0; i < found.length; i++) {
        setStatus(`Downloading ${i + 1} of ${found.length}…`);
        triggerDownload(found[i]);
        setDone(i + 1);
        if (i < found.length - 1) await pause(700);
      }
      setStatus(
        `${found.length === 1 ? 'Your photo is' : `${found.length} photos are`} downloading.${failed ? ` ${failed} could not be prepared.` : ''}`,
      );
    } catch (e) {
      setError((e as ApiError).message);
      setStatus(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class={compact ? 'downloads compact' : 'downloads'}>
      <div class="inline">
        {all && (
          <button type="button" disabled={busy} onClick={() => void start(all)}>
            {compact ? 'Download original' : `Download all ${total === 1 ? 'originals' : `${total} originals`}`}
          </button>
        )}
        {selected.length > 0 && (
          <>
            <button
              type="button"
              disabled={busy}
              onClick={() => void start({ method: 'image_ids', identifier: selected })}
            >
              Download {selected.length} selected
            </button>
            <button type="button" class="link" onClick={onClear}>
              Clear selection
            </button>
          </>
        )}
      </div>
      {(busy || status) && expected > 0 && <progress max={expected} value={done} aria-label="Download progress" />}
      {status && <p role="status">{status}</p>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {links.length > 0 && !compact && (
        <details class="files">
          <summary>Your files ({links.length})</summary>
          <ul>
            {links.map((l) => (
              <li key={l.url}>
                <a class="file-link" href={l.url} download={l.filename}>
                  {l.filename}
                </a>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
