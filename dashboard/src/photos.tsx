import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, gql, subscribe } from './api';
import { latestAnswer } from './latest-answer';
import { droppedFiles, forgetUpload, SavedUpload, unfinishedUploads, uploadPhoto } from './photo-uploads';
import { LiveNotice, Messages } from './messages';

/** Files uploaded at once: enough to fill the line, few enough that each one progresses visibly. */
const PARALLEL_UPLOADS = 4;

interface FileState {
  name: string;
  size: number;
  /** Bytes stored so far. */
  sent: number;
  state: 'waiting' | 'uploading' | 'imported' | 'duplicate' | 'rejected' | 'failed';
  reason?: string;
}

interface Pipeline {
  total: number;
  imported: number;
  queued: number;
  processing: number;
  processed: number;
  failed: number;
  live: number;
  isLive: boolean;
  failures: Array<{ reason: string; count: number }>;
  failedPhotos: Array<{ imageId: string; fileName: string; reason: string }>;
}

interface PhotoTransition {
  photoId: string;
  status: string;
  reason: string | null;
}

const PHOTO_STATUS = `subscription($orgId: Int!, $eventId: Int!) {
  photoStatus(orgId: $orgId, eventId: $eventId) { photoId status reason } }`;
const STATUS = `query($orgId: Int!, $eventId: Int!) { pipelineStatus(orgId: $orgId, eventId: $eventId) {
  total imported queued processing processed failed live isLive failures { reason count }
  failedPhotos { imageId fileName reason } } }`;
const RETRY_PHOTO = `mutation($orgId: Int!, $eventId: Int!, $imageId: String!) {
  retryPhoto(orgId: $orgId, eventId: $eventId, imageId: $imageId) { queued } }`;

/**
 * Uploads many photos (files or folders), PARALLEL_UPLOADS at a time straight to object storage at
 * URLs the API signs, with per-file and total progress; uploads in parts survive a reload and resume
 * when the same files are chosen again. Then shows processing.
 */
export function PhotosPage({ orgId, eventId }: { orgId: number; eventId: number }) {
  const [files, setFiles] = useState<FileState[]>([]);
  const [unfinished, setUnfinished] = useState(() => unfinishedUploads(eventId));
  const [pipeline, setPipeline] = useState<Pipeline | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [live, setLive] = useState(true);
  /** Failed photos whose retry was sent and not yet answered. */
  const [retrying, setRetrying] = useState<ReadonlySet<string>>(new Set());
  const ids = { orgId, eventId };
  const input = useRef<HTMLInputElement>(null);

  const showLatest = useRef(latestAnswer<Pipeline>(setPipeline)).current;
  const refresh = () =>
    showLatest(gql<{ pipelineStatus: Pipeline }>(STATUS, ids).then((d) => d.pipelineStatus)).catch((err: Error) =>
      setError(err.message),
    );
  useEffect(() => {
    void refresh();
    // Counts are read again when a photo changes (the photoStatus subscription), at most twice a second;
    // without the subscription (refused, or the connection lost) they are read every 5 s.
    let pending: ReturnType<typeof setTimeout> | null = null;
    let poll: ReturnType<typeof setInterval> | null = null;
    const soon = () => (pending ??= setTimeout(() => ((pending = null), void refresh()), 500));
    const stop = subscribe<{ photoStatus: PhotoTransition }>(
      PHOTO_STATUS,
      ids,
      () => {
        setLive(true);
        soon();
      },
      () => {
        setLive(false);
        poll ??= setInterval(() => void refresh(), 5000);
      },
    );
    return () => {
      stop();
      if (pending) clearTimeout(pending);
      if (poll) clearInterval(poll);
    };
  }, [orgId, eventId]);

  async function upload(list: File[]) {
    setError(null);
    const start = files.length;
    setFiles((f) => [
      ...f,
      ...list.map((file) => ({ name: file.name, size: file.size, sent: 0, state: 'waiting' as const })),
    ]);
    const update = (i: number, patch: Partial<FileState>) =>
      setFiles((f) => f.map((s, j) => (j === start + i ? { ...s, ...patch } : s)));
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const i = next++;
        update(i, { state: 'uploading' });
        try {
          const outcome = await uploadPhoto(orgId, eventId, list[i], (sent) => update(i, { sent }));
          update(i, { sent: list[i].size, state: outcome.status });
        } catch (err) {
          // The API's refusal (not a photo, too large) is final; anything else may go better on a new try.
          const refused = err instanceof ApiError && err.isRefusal;
          update(i, { state: refused ? 'rejected' : 'failed', reason: (err as Error).message });
        }
        setUnfinished(unfinishedUploads(eventId));
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_UPLOADS, list.length) }, worker));
    setUnfinished(unfinishedUploads(eventId));
    await refresh();
  }

  const forget = (storageKey: string, saved: SavedUpload) =>
    void forgetUpload(orgId, storageKey, saved).then(() => setUnfinished(unfinishedUploads(eventId)));
  const action = (query: string) =>
    gql<unknown>(query, ids)
      .then(refresh)
      .catch((err: Error) => setError(err.message));
  const retryPhoto = (imageId: string) => {
    setRetrying((r) => new Set(r).add(imageId));
    void gql<unknown>(RETRY_PHOTO, { ...ids, imageId })
      .then(refresh)
      .catch((err: Error) => setError(err.message))
      .finally(() =>
        setRetrying((r) => {
          const left = new Set(r);
          left.delete(imageId);
          return left;
        }),
      );
  };
  const sent = files.reduce((n, f) => n + f.sent, 0);
  const size = files.reduce((n, f) => n + f.size, 0);
  const finished = files.filter((f) => f.state !== 'waiting' && f.state !== 'uploading').length;
  const open = pipeline ? pipeline.imported + pipeline.queued + pipeline.processing : 0;
  const underWay = open > 0;
  useEffect(() => {
    if (!underWay) return;
    // A live update can be missed (a connection re-established): while photos are on their way, read again every 10 s.
    const timer = setInterval(() => void refresh(), 10_000);
    return () => clearInterval(timer);
  }, [underWay, orgId, eventId]);

  return (
    <section>
      <h1>Photos</h1>
      <Messages error={error} />
      <div
        class={`drop card${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          if (e.dataTransfer)
            void droppedFiles(e.dataTransfer).then((list) => (list.length ? upload(list) : undefined));
        }}
      >
        <p>Drop photos or folders here, or</p>
        <label class="button primary" for="photo-files">
          Choose photos
        </label>{' '}
        <label class="button" for="photo-folder">
          Choose a folder
        </label>
        <input
          id="photo-files"
          ref={input}
          class="visually-hidden"
          type="file"
          multiple
          accept="image/jpeg,image/png,image/webp,image/heic"
          onChange={(e) => {
            const chosen = [...((e.target as HTMLInputElement).files ?? [])];
            (e.target as HTMLInputElement).value = '';
            if (chosen.length) void upload(chosen);
          }}
        />
        <input
          id="photo-folder"
          class="visually-hidden"
          type="file"
          {...{ webkitdirectory: '' }}
          onChange={(e) => {
            const chosen = [...((e.target as HTMLInputElement).files ?? [])].filter((f) => !f.name.startsWith('.'));
            (e.target as HTMLInputElement).value = '';
            if (chosen.length) void upload(chosen);
          }}
        />
      </div>
      {unfinished.length > 0 && (
        <div class="card" data-testid="unfinished">
          <h2>Unfinished uploads</h2>
          <p>Choose the same files again to resume them where they stopped.</p>
          <ul class="files" tabIndex={0} aria-label="Unfinished uploads">
            {unfinished.map(({ storageKey, upload: saved }) => (
              <li key={storageKey}>
                <span class="file-name">{saved.name}</span>
                <span>
                  {saved.size < 1024 * 1024
                    ? `${Math.ceil(saved.size / 1024)} KB`
                    : `${Math.round(saved.size / 1024 / 1024)} MB`}
                </span>
                <button onClick={() => forget(storageKey, saved)} aria-label={`Forget the upload of ${saved.name}`}>
                  Forget
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {files.length > 0 && (
        <div class="card">
          <h2>Upload</h2>
          <label for="total-progress">
            Total: {finished} of {files.length} files
          </label>
          <progress id="total-progress" max={1} value={size ? sent / size : 0} />
          <ul class="files" tabIndex={0} aria-label="Uploads">
            {files.map((f, i) => (
              <li key={i} data-state={f.state}>
                <span class="file-name">{f.name}</span>
                <progress max={f.size || 1} value={f.sent} aria-label={`Upload of ${f.name}`} />
                <span class="file-state">
                  {f.state}
                  {f.reason ? `: ${f.reason}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {pipeline && (
        <div class="card" aria-live="polite">
          <h2>Processing</h2>
          <p class="hint" data-testid="status-mode">
            {live ? 'Live: counts change as each photo moves on.' : 'Counts are read every few seconds.'}
          </p>
          <dl class="counts">
            <div>
              <dt>Total</dt>
              <dd data-testid="count-total">{pipeline.total}</dd>
            </div>
            <div>
              <dt>Waiting</dt>
              <dd>{pipeline.imported + pipeline.queued}</dd>
            </div>
            <div>
              <dt>Processing</dt>
              <dd>{pipeline.processing}</dd>
            </div>
            <div>
              <dt>Processed</dt>
              <dd data-testid="count-processed">{pipeline.processed}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd>{pipeline.failed}</dd>
            </div>
            <div>
              <dt>Live</dt>
              <dd data-testid="count-live">{pipeline.live}</dd>
            </div>
          </dl>
          {pipeline.total > 0 && (
            <progress max={pipeline.total} value={pipeline.total - open} aria-label="Processing progress" />
          )}
          {pipeline.failedPhotos.length > 0 && (
            <ul class="failed-photos" data-testid="failed-photos" aria-label="Failed photos">
              {pipeline.failedPhotos.map((f) => (
                <li key={f.imageId}>
                  <span class="file-name">{f.fileName}</span>
                  <span class="reason">failed: {f.reason}</span>
                  <button
                    disabled={retrying.has(f.imageId)}
                    onClick={() => retryPhoto(f.imageId)}
                    aria-label={`Retry ${f.fileName}`}
                  >
                    Retry
                  </button>
                </li>
              ))}
            </ul>
          )}
          {pipeline.failures.length > 0 && (
            <ul>
              {pipeline.failures.map((f) => (
                <li key={f.reason}>
                  {f.reason} ({f.count})
                </li>
              ))}
            </ul>
          )}
          <div class="actions-row">
            {pipeline.failed > 0 && (
              <button
                onClick={() =>
                  void action(
                    'mutation($orgId: Int!, $eventId: Int!) { processPhotos(orgId: $orgId, eventId: $eventId, retryFailed: true) { queued } }',
                  )
                }
              >
                Retry failed
              </button>
            )}
            {!pipeline.isLive && (
              <button
                class="primary"
                onClick={() =>
                  void action(
                    'mutation($orgId: Int!, $eventId: Int!) { goLive(orgId: $orgId, eventId: $eventId) { published } }',
                  )
                }
              >
                Go live
              </button>
            )}
            {pipeline.isLive && <LiveNotice />}
          </div>
        </div>
      )}
    </section>
  );
}
