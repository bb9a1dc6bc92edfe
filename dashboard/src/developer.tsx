import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { Messages } from './messages';

interface Key {
  id: number;
  name: string;
  prefix: string;
  active: boolean;
  allowedHosts: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

const KEY_FIELDS = 'id name prefix active allowedHosts createdAt lastUsedAt';

/** API keys: Create Token shows the key once, with a copy button and a first call. */
export function DeveloperZone({ org }: { org: { id: number; name: string } }) {
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [name, setName] = useState('');
  const [hosts, setHosts] = useState('');

  const load = () =>
    gql<{ apiKeys: Key[] }>(`query($orgId: Int!) { apiKeys(orgId: $orgId) { ${KEY_FIELDS} } }`, { orgId: org.id })
      .then((d) => setKeys(d.apiKeys))
      .catch((err: Error) => setError(err.message));
  useEffect(() => void load(), [org.id]);

  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const allowedHosts = hosts.split(/[\s,]+/).filter(Boolean);
      const d = await gql<{ createApiKey: { key: string; apiKey: { name: string } } }>(
        `mutation($orgId: Int!, $name: String!, $allowedHosts: [String!]) { createApiKey(orgId: $orgId, name: $name, allowedHosts: $allowedHosts) { key apiKey { name } } }`,
        { orgId: org.id, name, allowedHosts },
      );
      setCreated({ key: d.createApiKey.key, name: d.createApiKey.apiKey.name });
      setCopied(false);
      setName('');
      setHosts('');
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

  const curl = created && `curl -s -H 'X-API-Key: ${created.key}' ${location.origin}/api/v1/ext/${org.id}/events`;
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
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Active</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Prefix">
                    <code>{k.prefix}…</code>
                  </td>
                  <td data-label="Created">{k.createdAt.slice(0, 10)}</td>
                  <td data-label="Last used">{k.lastUsedAt?.slice(0, 16).replace('T', ' ') ?? 'never'}</td>
                  <td data-label="Active">
                    <button onClick={() => void setActive(k, !k.active)} aria-pressed={k.active}>
                      {k.active ? 'Deactivate' : 'Activate'}
                      <span class="visually-hidden"> {k.name}</span>
                    </button>
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
