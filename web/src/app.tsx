import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError, EventDetails } from './api';
import { loaderFor, Results } from './results';
import { readEventPath, readKey, readView, View, viewSearch } from './route';
import { BibSearch, NameSearch, SelfieSearch } from './search';
import { fromSpecDateTime, formatDate, zoneOf } from './time';
import { Timeline } from './timeline';

function Message({ text }: { text: string }) {
  return (
    <main class="wrap">
      <h1 class="plain">Find your photos</h1>
      <p class="error" role="alert">
        {text}
      </p>
    </main>
  );
}

export function App() {
  const place = readEventPath(location.pathname);
  const key = place ? readKey(location.hash, safeSession(), `${place.orgId}/${place.eventId}`) : null;
  const api = useMemo(() => {
    if (!place || !key) return null;
    const client = new Api(
      `/api/v1/ext/${place.orgId}/event/${place.eventId}`,
      key,
      `/events/api/${place.orgId}/event/${place.eventId}`,
    );
    client.prefetch((a) => loaderFor(a, readView(location.search))(1));
    return client;
  }, [key]);
  const [details, setDetails] = useState<EventDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useState<View>(() => readView(location.search));

  useEffect(() => {
    if (!api) return;
    api.details().then(setDetails, (e: ApiError) => setError(e.message));
    const onPop = () => setView(readView(location.search));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, [api]);

  useEffect(() => {
    if (details) document.title = `${details.event_name}: find your photos`;
  }, [details]);

  const go = (next: View) => {
    history.pushState(null, '', `${location.pathname}${viewSearch(next)}${location.hash}`);
    setView(next);
  };

  if (!place) return <Message text="This address does not name an event." />;
  if (!api)
    return <Message text="This page link is missing its access key. Please open the link the organiser sent you." />;
  if (error) return <Message text={error} />;
  if (!details)
    return (
      <main class="wrap">
        <p class="loading" role="status">
          Loading the event…
        </p>
      </main>
    );
  if (!details.event_enabled)
    return <Message text="The photos of this event are not available yet. Please come back later." />;

  const zone = zoneOf(details.time_zone);
  const clipsOn = details.video_search && details.video_selfie_search;
  return (
    <>
      <header class="hero">
        {details.cover_image && <img class="cover" src={details.cover_image} alt="" fetchpriority="low" />}
        <div class="wrap">
          <h1>{details.event_name}</h1>
          {details.event_date && <p class="date">{formatDate(fromSpecDateTime(details.event_date), zone)}</p>}
        </div>
      </header>
      <main class="wrap" id="main">
        {(details.bib_search || details.selfie_search || details.name_search) && (
          <section class="finders" aria-labelledby="find-title">
            <h2 id="find-title">Find your photos</h2>
            <div class="finder-row">
              {details.bib_search && (
                <BibSearch initial={view.kind === 'bib' ? view.bib : ''} onSearch={(bib) => go({ kind: 'bib', bib })} />
              )}
              {details.name_search && <NameSearch api={api} onChoose={(bib) => go({ kind: 'bib', bib })} />}
              {details.selfie_search && (
                <SelfieSearch api={api} onResult={(requestId) => go({ kind: 'selfie', requestId })} />
              )}
            </div>
          </section>
        )}
        {details.timeline_search && <Timeline api={api} zone={zone} view={view} onChoose={go} />}
        <Results
          api={api}
          view={view}
          details={details}
          zone={zone}
          clipsOn={clipsOn}
          onShowAll={() => go({ kind: 'all' })}
        />
      </main>
    </>
  );
}

function safeSession(): Storage | null {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}
