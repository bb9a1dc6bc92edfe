import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, gqlUpload, subscribe } from './api';
import { Messages } from './messages';

interface Video {
  id: string;
  sourceKey: string;
  originalFileName: string;
  status: string;
  error: string | null;
  durationSeconds: number | null;
  indexProgress: number;
}

interface Upload {
  name: string;
  progress: number;
  state: 'waiting' | 'uploading' | 'added' | 'failed';
  reason?: string;
}

const VIDEO_FIELDS = 'id sourceKey originalFileName status error durationSeconds indexProgress';
const VIDEOS = `query($orgId: Int!, $eventId: Int!) { eventVideos(orgId: $orgId, eventId: $eventId) { ${VIDEO_FIELDS} } }`;
const ADD = `mutation($orgId: Int!, $eventId: Int!, $file: Upload) {
  addEventVideo(orgId: $orgId, eventId: $eventId, file: $file) { ${VIDEO_FIELDS} } }`;
const VIDEO_STATUS = `subscription($orgId: Int!, $eventId: Int!) {
  videoStatus(orgId: $orgId, eventId: $eventId) { videoId status progress error } }`;
/** Without the subscription (refused, or the connection lost), the list is read this often while a video is not finished. */
const REFRESH_MS = 2000;
const FINISHED = ['indexed', 'failed'];

interface VideoTransition {
  videoId: string;
  status: string;
  progress: number;
  error: string | null;
}

const duration = (s: number | null) =>
  s === null ? '—' : `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;

/** The event's videos: upload with progress (one at a time: videos are large), then their indexing, refreshed live. */
export function VideosPage({ orgId, eventId }: { orgId: number; eventId: number }) {
  const [videos, setVideos] = useState<Video[] | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(true);
  const ids = { orgId, eventId };
  /** The ids the page lists, for the subscription to tell a new video from a listed one. */
  const listed = useRef<ReadonlySet<string>>(new Set());

  const refresh = () =>
    gql<{ eventVideos: Video[] }>(VIDEOS, ids)
      .then((d) => {
        listed.current = new Set(d.eventVideos.map((v) => v.id));
        setVideos(d.eventVideos);
      })
      .catch((err: Error) => setError(err.message));
  const busy = uploads.some((u) => u.state === 'uploading' || u.state === 'waiting');
  const indexing = videos?.some((v) => !FINISHED.includes(v.status)) ?? false;
  useEffect(() => {
    void refresh();
    setLive(true);
    // A transition updates its row at once; a video the page does not list yet, or one just indexed
    // (its duration), is read again, at most twice a second.
    let pending: ReturnType<typeof setTimeout> | null = null;
    const soon = () => (pending ??= setTimeout(() => ((pending = null), void refresh()), 500));
    const stop = subscribe<{ videoStatus: VideoTransition }>(
      VIDEO_STATUS,
      ids,
      ({ videoStatus: t }) => {
        if (!listed.current.has(t.videoId) || t.status === 'indexed') return void soon();
        setVideos((list) =>
          (list ?? []).map((v) =>
            v.id === t.videoId ? { ...v, status: t.status, indexProgress: t.progress, error: t.error } : v,
          ),
        );
      },
      () => setLive(false),
    );
    return () => {
      stop();
      if (pending) clearTimeout(pending);
    };
  }, [orgId, eventId]);
  useEffect(() => {
    if (live || (!busy && !indexing)) return;
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [orgId, eventId, busy, indexing, live]);

  async function upload(list: File[]) {
    setError(null);
    const start = uploads.length;
    setUploads((u) => [...u, ...list.map((f) => ({ name: f.name, progress: 0, state: 'waiting' as const }))]);
    const update = (i: number, patch: Partial<Upload>) =>
      setUploads((u) => u.map((s, j) => (j === start + i ? { ...s, ...patch } : s)));
    for (const [i, file] of list.entries()) {
      update(i, { state: 'uploading' });
      try {
        await gqlUpload<unknown>(ADD, ids, 'file', file, (p) => update(i, { progress: p }), false);
        update(i, { progress: 1, state: 'added' });
      } catch (err) {
        update(i, { state: 'failed', reason: (err as Error).message });
      }
      await refresh();
    }
  }

  return (
    <section>
      <h1>Videos</h1>
      <Messages error={error} />
      <div class="card">
        <p>Each video is checked, stored, then indexed: its faces become searchable for clips.</p>
        <label class="button primary" for="video-files">
          Choose videos
        </label>
        <input
          id="video-files"
          class="visually-hidden"
          type="file"
          multiple
          accept="video/*"
          onChange={(e) => {
            const chosen = [...((e.target as HTMLInputElement).files ?? [])];
            (e.target as HTMLInputElement).value = '';
            if (chosen.length) void upload(chosen);
          }}
        />
        {uploads.length > 0 && (
          <ul class="files">
            {uploads.map((u, i) => (
              <li key={i} data-state={u.state}>
                <span class="file-name">{u.name}</span>
                <progress max={1} value={u.progress} aria-label={`Upload of ${u.name}`} />
                <span class="file-state">{u.state}</span>
                {u.reason && <span class="file-reason">{u.reason}</span>}
              </li>
            ))}
          </ul>
        )}
      </div>
      <p class="hint" data-testid="video-status-mode">
        {live
          ? 'Live: each video’s indexing shows as it moves on.'
          : 'Read every 2 seconds while a video is not finished.'}
      </p>
      {!videos ? (
        <p>Loading…</p>
      ) : videos.length === 0 ? (
        <p>No videos yet.</p>
      ) : (
        <div class="table-wrap" aria-live="polite">
          <table>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Source key</th>
                <th scope="col">Duration</th>
                <th scope="col">Indexing</th>
              </tr>
            </thead>
            <tbody>
              {videos.map((v) => (
                <tr key={v.id} data-testid="video-row">
                  <td data-label="File">{v.originalFileName}</td>
                  <td data-label="Source key">
                    <code>{v.sourceKey}</code>
                  </td>
                  <td data-label="Duration">{duration(v.durationSeconds)}</td>
                  <td data-label="Indexing">
                    <span class={`status status-${v.status}`} data-testid="video-status">
                      {v.status}
                    </span>
                    {v.status === 'indexing' && ` ${Math.round(v.indexProgress * 100)}%`}
                    {v.error && <span class="badge">{v.error}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
