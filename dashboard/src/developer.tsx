import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { CheckboxField } from './checkbox-field';
import { everyEventName } from './event-names';
import { Messages } from './messages';

interface Key {
  id: number;
  name: string;
  prefix: string;
  active: boolean;
  allowedHosts: string[];
  readOnly: boolean;
  eventIds: number[] | null;
  createdAt: string;
  lastUsedAt: string | null;
}

const KEY_FIELDS = 'id name prefix active allowedHosts readOnly eventIds createdAt lastUsedAt';

/**
 * The Origin a first call from the key's first allowed host sends (a key with hosts answers 403 without one); null for
 * a wildcard or an address (an address entry is matched against the caller's address, not its Origin).
 */
function originOf(hosts: string[]): string | null {
  const host = hosts[0];
  if (!host || host.includes('*') || /^[\d.]+$|:/.test(host)) return null;
  return `${host === 'localhost' ? 'http' : 'https'}://${host}`;
}

/** What a key may do, in the table: its access, the events it reaches and the hosts it is used from. */
function keyScope(k: Key, eventNames: Map<number, string>): { access: string; events: string; hosts: string } {
  return {
    access: k.readOnly ? 'read and search' : 'full',
    events: k.eventIds ? k.eventIds.map((id) => eventNames.get(id) ?? `event ${id}`).join(', ') : 'every event',
    hosts: k.allowedHosts.length ? k.allowedHosts.join(', ') : 'any',
  };
}

/** API keys: Create Token shows the key once, with a copy button and a first call. */
export function DeveloperZone({ org }: { org: { id: number; name: string } }) {
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ key: string; name: string; origin: string | null } | null>(null);
  const [copied, setCopied] = useState(false);
  const [name, setName] = useState('');
  const [hosts, setHosts] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [eventId, setEventId] = useState('');
  const [eventNames, setEventNames] = useState<Map<number, string>>(new Map());

  // A key action changes keys only: the event names (every page of events) are read once per organisation.
  const load = () =>
    gql<{ apiKeys: Key[] }>(`query($orgId: Int!) { apiKeys(orgId: $orgId) { ${KEY_FIELDS} } }`, { orgId: org.id })
      .then((d) => setKeys(d.apiKeys))
      .catch((err: Error) => setError(err.message));
  useEffect(() => {
    void load();
    everyEventName(org.id)
      .then(setEventNames)
      .catch((err: Error) => setError(err.message));
  }, [org.id]);

  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const allowedHosts = hosts.split(/[\s,]+/).filter(Boolean);
      const d = await gql<{ createApiKey: { key: string; apiKey: { name: string } } }>(
        `mutation($orgId: Int!, $name: String!, $allowedHosts: [String!], $readOnly: Boolean, $eventIds: [Int!]) {
          createApiKey(orgId: $orgId, name: $name, allowedHosts: $allowedHosts, readOnly: $readOnly, eventIds: $eventIds) { key apiKey { name } } }`,
        { orgId: org.id, name, allowedHosts, readOnly, eventIds: eventId ? [Number(eventId)] : null },
      );
      setCreated({ key: d.createApiKey.key, name: d.createApiKey.apiKey.name, origin: originOf(allowedHosts) });
      setCopied(false);
      setName('');
      setHosts('');
      setReadOnly(false);
      setEventId('');
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  /** Deletes a key for good (an organisation holds a bounded number of keys; a deactivated one still counts). */
  async function remove(key: Key) {
    if (!confirm(`Delete the key “${key.name}” for good? Every call with it is refused from now on.`)) return;
    setError(null);
    try {
      await gql<unknown>('mutation($orgId: Int!, $keyId: Int!) { deleteApiKey(orgId: $orgId, keyId: $keyId) }', {
        orgId: org.id,
        keyId: key.id,
      });
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  async function setActive(key: Key, active: boolean) {
    try {
      await gql<unknown>(
        'mutation($orgId: Int!, $keyId: Int!, $active: Boolean!) { setApiKeyActive(orgId: $orgId, keyId: $keyId, active: $active) { id } }',
        { orgId: org.id, keyId: key.id, active },
      );
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  const originHeader = created?.origin ? ` -H 'Origin: ${created.origin}'` : '';
  const curl =
    created && `curl -s -H 'X-API-Key: ${created.key}'${originHeader} ${location.origin}/api/v1/ext/${org.id}/events`;
  return (
    <section>
      <h1>Developer Zone</h1>
      <Messages error={error} />
      {created && (
        <div class="card created" role="status">
          <h2>Your new token “{created.name}”</h2>
          <p>
            Copy it now: it is shown <strong>once</strong> and never again.
          </p>
          <code class="secret" data-testid="new-token">
            {created.key}
          </code>
          <button onClick={() => void navigator.clipboard.writeText(created.key).then(() => setCopied(true))}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          <p>Your first call:</p>
          <pre class="curl">{curl}</pre>
          <button onClick={() => setCreated(null)}>Done, I saved it</button>
        </div>
      )}
      <form class="card" onSubmit={(e) => void create(e)}>
        <h2>Create Token</h2>
        <label for="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <label for="key-hosts">Allowed hosts (space or comma separated; empty = any)</label>
        <input id="key-hosts" value={hosts} onInput={(e) => setHosts((e.target as HTMLInputElement).value)} />
        <label for="key-event">Events</label>
        <select id="key-event" value={eventId} onChange={(e) => setEventId((e.target as HTMLSelectElement).value)}>
          <option value="">Every event of {org.name}</option>
          {[...eventNames].map(([id, name]) => (
            <option key={id} value={String(id)}>
              {name}
            </option>
          ))}
        </select>
        <CheckboxField
          id="key-read-only"
          checked={readOnly}
          onChange={setReadOnly}
          label="Browser key: reads and searches only"
          help="For a page of your website that participants open: the key is in the page, so anyone can read it. It cannot change anything; give it your site's host above so that other sites cannot use it."
        />
        <button class="primary" type="submit">
          Create Token
        </button>
      </form>
      {!keys ? (
        <p>Loading…</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Access</th>
                <th scope="col">Events</th>
                <th scope="col">Hosts</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Active</th>
                <th scope="col">
                  <span class="visually-hidden">Delete</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => {
                const scope = keyScope(k, eventNames);
                return (
                  <tr key={k.id}>
                    <td data-label="Name">{k.name}</td>
                    <td data-label="Prefix">
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label="Access">{scope.access}</td>
                    <td data-label="Events">{scope.events}</td>
                    <td data-label="Hosts">{scope.hosts}</td>
                    <td data-label="Created">{k.createdAt.slice(0, 10)}</td>
                    <td data-label="Last used">{k.lastUsedAt?.slice(0, 16).replace('T', ' ') ?? 'never'}</td>
                    <td data-label="Active">
                      <button onClick={() => void setActive(k, !k.active)} aria-pressed={k.active}>
                        {k.active ? 'Deactivate' : 'Activate'}
                        <span class="visually-hidden"> {k.name}</span>
                      </button>
                    </td>
                    <td data-label="Delete">
                      <button class="danger" onClick={() => void remove(k)}>
                        Delete<span class="visually-hidden"> {k.name}</span>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
