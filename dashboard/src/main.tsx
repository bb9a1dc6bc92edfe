import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { gql, loadSession, Organisation, Session, signIn, signOut } from './api';
import { DeveloperZone } from './developer';
import { EventNav } from './event-nav';
import { EventsPage } from './events';
import { MembersPage } from './members';
import { PhotosPage } from './photos';
import { ReviewPage } from './review';
import { onLink, useRoute } from './route';
import { SettingsPage } from './settings';
import { StartListPage } from './start-list';
import { UsagePage } from './usage';
import { VideosPage } from './videos';
import './styles.css';

function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [orgs, setOrgs] = useState<Organisation[] | null>(null);
  const [orgId, setOrgId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (route.page === 'signed-out') return setSession(null);
    loadSession()
      .then(async (s) => {
        setSession(s);
        if (!s) return;
        const organisations =
          s.organisations ??
          (await gql<{ organisations: Organisation[] }>('{ organisations { id name role } }')).organisations;
        setOrgs(organisations);
        const remembered = Number(localStorage.getItem('dashboard.org'));
        setOrgId(organisations.find((o) => o.id === remembered)?.id ?? organisations[0]?.id ?? null);
      })
      .catch((err: Error) => setError(err.message));
  }, [route.page === 'signed-out']);

  if (error)
    return (
      <main class="page">
        <p class="error" role="alert">
          {error}
        </p>
      </main>
    );
  if (session === undefined)
    return (
      <main class="page">
        <p>Loading…</p>
      </main>
    );
  if (!session) {
    return (
      <main class="page narrow">
        <h1>Organisation dashboard</h1>
        <p>
          {route.page === 'signed-out' ? 'You are signed out.' : 'Sign in to run your events, photos and API keys.'}
        </p>
        <button class="primary" onClick={signIn}>
          Sign in
        </button>
      </main>
    );
  }
  const org = orgs?.find((o) => o.id === orgId) ?? null;
  const link = (path: string, label: string, current: boolean) => (
    <a href={path} onClick={(e) => onLink(e, path)} aria-current={current ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <header class="top">
        <strong class="brand">Dashboard</strong>
        <nav aria-label="Main">
          {link('/dashboard/events', 'Events', route.page.startsWith('event'))}
          {link('/dashboard/members', 'Members', route.page === 'members')}
          {link('/dashboard/usage', 'Usage', route.page === 'usage')}
          {link('/dashboard/developer', 'Developer Zone', route.page === 'developer')}
        </nav>
        {orgs && orgs.length > 1 && (
          <label class="org">
            <span class="visually-hidden">Organisation</span>
            <select
              value={orgId ?? ''}
              onChange={(e) => {
                const id = Number((e.target as HTMLSelectElement).value);
                localStorage.setItem('dashboard.org', String(id));
                setOrgId(id);
              }}
            >
              {orgs.map((o) => (
                <option value={o.id} key={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <span class="who">{session.email}</span>
        <button onClick={() => void signOut()}>Sign out</button>
      </header>
      <main class="page">
        {org && 'eventId' in route && (
          <EventNav orgId={org.id} eventId={route.eventId} current={route.page.slice('event-'.length)} />
        )}
        {!org ? (
          <p>Your account is not a member of any organisation yet. Ask an admin to invite you.</p>
        ) : route.page === 'developer' ? (
          <DeveloperZone org={org} />
        ) : route.page === 'members' ? (
          <MembersPage org={org} />
        ) : route.page === 'usage' ? (
          <UsagePage org={org} />
        ) : route.page === 'event-videos' ? (
          <VideosPage orgId={org.id} eventId={route.eventId} />
        ) : route.page === 'event-start-list' ? (
          <StartListPage orgId={org.id} eventId={route.eventId} />
        ) : route.page === 'event-settings' ? (
          <SettingsPage orgId={org.id} eventId={route.eventId} />
        ) : route.page === 'event-photos' ? (
          <PhotosPage orgId={org.id} eventId={route.eventId} />
        ) : route.page === 'event-review' ? (
          <ReviewPage orgId={org.id} eventId={route.eventId} />
        ) : (
          <EventsPage org={org} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
