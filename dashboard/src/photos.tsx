import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, gqlUpload } from './api';

/** Files uploaded at once: enough to fill the line, few enough that each one progresses visibly. */
const PARALLEL_UPLOADS = 4;

interface FileState {
  name: string;
  size: number;
  progress: number;
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
}

interface ImportAnswer {
  importPhotos: { files: Array<{ status: 'imported' | 'duplicate' | 'rejected'; reason: string | null }> };
}

const IMPORT = `mutation($orgId: Int!, $eventId: Int!, $files: [Upload!]) {
  importPhotos(orgId: $orgId, eventId: $eventId, files: $files) { imported duplicates rejected files { status reason } } }`;
const STATUS = `query($orgId: Int!, $eventId: Int!) { pipelineStatus(orgId: $orgId, eventId: $eventId) {
  total imported queued processing processed failed live isLive failures { reason count } } }`;

/**
 * Uploads many photos, PARALLEL_UPLOADS at a time through GraphQL multipart (the API offers no
 * presigned upload), with per-file and total progress; then queues them and shows processing live.
 */
export function PhotosPage({ orgId, eventId }: { orgId: number; eventId: number }) {
  const [files, setFiles] = useState<FileState[]>([]);
  const [pipeline, setPipeline] = useState<Pipeline | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const ids = { orgId, eventId };
  const input = useRef<HTMLInputElement>(null);

  const refresh = () =>
    gql<{ pipelineStatus: Pipeline }>(STATUS, ids)
      .then((d) => setPipeline(d.pipelineStatus))
      .catch((err: Error) => setError(err.message));
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), 2000);
    return () => clearInterval(timer);
  }, [orgId, eventId]);

  async function upload(list: File[]) {
    setError(null);
    const start = files.length;
    setFiles((f) => [
      ...f,
      ...list.map((file) => ({ name: file.name, size: file.size, progress: 0, state: 'waiting' as const })),
    ]);
    const update = (i: number, patch: Partial<FileState>) =>
      setFiles((f) => f.map((s, j) => (j === start + i ? { ...s, ...patch } : s)));
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const i = next++;
        update(i, { state: 'uploading' });
        try {
          const d = await gqlUpload<ImportAnswer>(IMPORT, ids, 'files', list[i], (p) => update(i, { progress: p }));
          const outcome = d.importPhotos.files[0];
          update(i, { progress: 1, state: outcome?.status ?? 'imported', reason: outcome?.reason ?? undefined });
        } catch (err) {
          update(i, { state: 'failed', reason: (err as Error).message });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_UPLOADS, list.length) }, worker));
    try {
      await gql<unknown>(
        'mutation($orgId: Int!, $eventId: Int!) { processPhotos(orgId: $orgId, eventId: $eventId) { queued } }',
        ids,
      );
    } catch (err) {
      setError((err as Error).message);
    }
    await refresh();
  }

  const action = (query: string) =>
    gql<unknown>(query, ids)
      .then(refresh)
      .catch((err: Error) => setError(err.message));
  const sent = files.reduce((n, f) => n + f.size * f.progress, 0);
  const size = files.reduce((n, f) => n + f.size, 0);
  const open = pipeline ? pipeline.imported + pipeline.queued + pipeline.processing : 0;

  return (
    <section>
      <h1>Photos</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
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
          void upload([...(e.dataTransfer?.files ?? [])]);
        }}
      >
        <p>Drop photos here, or</p>
        <label class="button primary" for="photo-files">
          Choose photos
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
      </div>
      {files.length > 0 && (
        <div class="card">
          <h2>Upload</h2>
          <label for="total-progress">
            Total: {files.filter((f) => f.progress === 1).length} of {files.length} files
          </label>
          <progress id="total-progress" max={1} value={size ? sent / size : 0} />
          <ul class="files">
            {files.map((f, i) => (
              <li key={i} data-state={f.state}>
                <span class="file-name">{f.name}</span>
                <progress max={1} value={f.progress} aria-label={`Upload of ${f.name}`} />
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
            {pipeline.isLive && <p>The event is live: processed photos are published.</p>}
          </div>
        </div>
      )}
    </section>
  );
}
