import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { Messages } from './messages';

interface Member {
  accountId: number;
  email: string;
  role: string;
  status: string;
  createdAt: string;
}

const MEMBER_FIELDS = 'accountId email role status createdAt';
const ROLES = ['admin', 'user'];

/** Members and invitations: invite by e-mail with a role, change a role, remove (its admins only). */
export function MembersPage({ org }: { org: { id: number; name: string; role: string | null } }) {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [forbidden, setForbidden] = useState(org.role === 'user');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('user');
  const [removing, setRemoving] = useState<number | null>(null);
  // Roles chosen but not saved yet: a select changes on arrow keys, so a role changes only with its button.
  const [drafts, setDrafts] = useState<Record<number, string>>({});

  const load = () =>
    gql<{ members: Member[] }>(`query($orgId: Int!) { members(orgId: $orgId) { ${MEMBER_FIELDS} } }`, {
      orgId: org.id,
    })
      .then((d) => setMembers(d.members))
      .catch((err: ApiError) => (err.code === 'FORBIDDEN' ? setForbidden(true) : setError(err.message)));
  useEffect(() => {
    setForbidden(org.role === 'user');
    if (org.role !== 'user') void load();
  }, [org.id]);

  /** Runs a change; the server's refusal (the last admin stays) is shown as it words it, and the list reloaded. */
  async function change(run: () => Promise<string>) {
    setError(null);
    setNotice(null);
    try {
      setNotice(await run());
    } catch (err) {
      setError((err as Error).message);
    }
    await load();
  }

  const invite = (e: Event) => {
    e.preventDefault();
    void change(async () => {
      const d = await gql<{ inviteMember: Member & { invitationMailed: boolean | null } }>(
        `mutation($orgId: Int!, $email: String!, $role: String!) {
          inviteMember(orgId: $orgId, email: $email, role: $role) { ${MEMBER_FIELDS} invitationMailed } }`,
        { orgId: org.id, email, role },
      );
      setEmail('');
      const m = d.inviteMember;
      const told = m.invitationMailed ? ' An invitation e-mail is on its way to them.' : '';
      return m.status === 'pending'
        ? `${m.email} invited as ${m.role}: pending until they first sign in.` +
            (told ||
              ` Send them a set-password link (npm run cli -- set-password --email ${m.email}), or configure SMTP_URL.`)
        : `${m.email} is a member now, as ${m.role}.${told}`;
    });
  };

  const setMemberRole = (m: Member, wanted: string) =>
    change(async () => {
      try {
        await gql<unknown>(
          `mutation($orgId: Int!, $accountId: Int!, $role: String!) {
            setMemberRole(orgId: $orgId, accountId: $accountId, role: $role) { accountId } }`,
          { orgId: org.id, accountId: m.accountId, role: wanted },
        );
        return `${m.email} is ${wanted} now.`;
      } finally {
        // Saved or refused, the select shows the role the server holds again.
        setDrafts((d) => Object.fromEntries(Object.entries(d).filter(([id]) => Number(id) !== m.accountId)));
      }
    });

  const remove = (m: Member) =>
    change(async () => {
      setRemoving(null);
      await gql<unknown>(
        'mutation($orgId: Int!, $accountId: Int!) { removeMember(orgId: $orgId, accountId: $accountId) }',
        {
          orgId: org.id,
          accountId: m.accountId,
        },
      );
      return `${m.email} removed from ${org.name}.`;
    });

  if (forbidden)
    return (
      <section>
        <h1>Members of {org.name}</h1>
        <p class="card">Admins only: ask an admin of {org.name} to invite members or change roles.</p>
      </section>
    );
  return (
    <section>
      <h1>Members of {org.name}</h1>
      <Messages error={error} notice={notice} />
      <form class="card" onSubmit={invite}>
        <h2>Invite a member</h2>
        <label for="invite-email">E-mail</label>
        <input
          id="invite-email"
          type="email"
          required
          maxLength={254}
          autoComplete="off"
          value={email}
          onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
        />
        <label for="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
          <option value="user">user: reads the events and photos</option>
          <option value="admin">admin: runs events, members, usage, API keys</option>
        </select>
        <button class="primary" type="submit">
          Invite
        </button>
      </form>
      {!members ? (
        <p>Loading…</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.accountId} data-testid="member-row">
                  <td data-label="E-mail">{m.email}</td>
                  <td data-label="Role">
                    <span class="role-edit">
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={drafts[m.accountId] ?? m.role}
                        onChange={(e) =>
                          setDrafts((d) => ({ ...d, [m.accountId]: (e.target as HTMLSelectElement).value }))
                        }
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                      {drafts[m.accountId] !== undefined && drafts[m.accountId] !== m.role && (
                        <button onClick={() => void setMemberRole(m, drafts[m.accountId])}>
                          Save role<span class="visually-hidden"> of {m.email}</span>
                        </button>
                      )}
                    </span>
                  </td>
                  <td data-label="Status">
                    <span class={`status status-${m.status}`}>{m.status}</span>
                  </td>
                  <td class="actions">
                    {removing === m.accountId ? (
                      <span class="confirm" role="group" aria-label={`Remove ${m.email}?`}>
                        <span>Remove {m.email}?</span>
                        <button class="danger" onClick={() => void remove(m)}>
                          Yes, remove
                        </button>
                        <button onClick={() => setRemoving(null)}>Cancel</button>
                      </span>
                    ) : (
                      <button class="danger" onClick={() => setRemoving(m.accountId)}>
                        Remove<span class="visually-hidden"> {m.email}</span>
                      </button>
                    )}
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
