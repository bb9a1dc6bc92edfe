import { useEffect, useRef, useState } from 'preact/hooks';
import { Api, ApiError, Clipping } from './api';

/** The spec's polling advice: 3 s, 5 s, 10 s, 15 s, then every 15 s. */
const POLL_MS = [3000, 5000, 10000, 15000];

const OUTCOME: Record<string, string> = {
  no_matches: 'We did not find you in the event videos.',
  no_segments: 'You appear too briefly in the event videos to make a clip.',
  clip_failed: 'We could not cut your video moments. Please try again later.',
  failed: 'We could not cut your video moments. Please try again later.',
};

/** "My video moments" of a selfie result: asks for clips with its request_id, polls, then plays them inline. */
export function VideoMoments({ api, requestId }: { api: Api; requestId: string }) {
  const [clipping, setClipping] = useState<Clipping | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const timer = useRef<number | undefined>(undefined);

  const poll = (attempt: number) => {
    timer.current = window.setTimeout(
      () =>
        void (async () => {
          try {
            const c = await api.clipping(requestId);
            setClipping(c);
            if (c.status === 'processing') poll(attempt + 1);
          } catch (e) {
            setError((e as ApiError).message);
          }
        })(),
      POLL_MS[Math.min(attempt, POLL_MS.length - 1)],
    );
  };

  // A reload shows what was already asked for (a read), without asking again.
  useEffect(() => {
    let live = true;
    api.clipping(requestId).then(
      (c) => {
        if (!live) return;
        setClipping(c);
        if (c.status === 'processing') poll(0);
      },
      () => undefined,
    );
    return () => {
      live = false;
      clearTimeout(timer.current);
    };
  }, [requestId]);

  const ask = async () => {
    setAsking(true);
    setError(null);
    try {
      const started = await api.startClipping(requestId);
      setClipping({ request_id: started.request_id, status: started.status, videos: [], error: null });
      if (started.status === 'processing') poll(0);
    } catch (e) {
      setError((e as ApiError).message);
    } finally {
      setAsking(false);
    }
  };

  return (
    <section class="moments" aria-labelledby="moments-title">
      <h3 id="moments-title">My video moments</h3>
      {!clipping && (
        <button type="button" onClick={() => void ask()} disabled={asking}>
          Find my video moments
        </button>
      )}
      {clipping?.status === 'processing' && (
        <p role="status" class="loading">
          Cutting your video moments… this usually takes less than a minute.
        </p>
      )}
      {clipping && OUTCOME[clipping.status] && <p role="status">{OUTCOME[clipping.status]}</p>}
      {clipping?.status === 'completed' && (
        <>
          <p role="status">
            {clipping.videos.length === 1
              ? 'Your video moment is ready.'
              : `Your ${clipping.videos.length} video moments are ready.`}
          </p>
          <ul class="clips">
            {clipping.videos.map((v, i) => (
              <li key={v.uuid}>
                <video controls playsInline preload="metadata" src={v.video_url} aria-label={`Video moment ${i + 1}`} />
                <p>
                  {v.start_time && v.end_time ? `From ${v.start_time} to ${v.end_time} of the event video. ` : ''}
                  {v.download_status === 'ready' && (
                    <a href={v.download_url} download>
                      Download video moment {i + 1}
                    </a>
                  )}
                </p>
              </li>
            ))}
          </ul>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
