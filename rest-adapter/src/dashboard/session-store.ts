import type { Redis } from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';

export interface DashboardSession {
  accessToken: string;
  idToken: string;
  email: string | null;
  /** Sent back by the page in `x-csrf-token` on every state-changing call. */
  csrfToken: string;
  /** Epoch ms: the session ends then (its access token's expiry at the latest). */
  expiresAt: number;
}

const hash = (id: string) => createHash('sha256').update(id).digest('hex');

/**
 * Dashboard sessions in Redis, so any REST adapter process serves any
 * request. The browser holds only a random id; Redis holds the hash of it as the key, so a dump of
 * Redis gives no usable cookie. Tokens stay here.
 */
export class SessionStore {
  constructor(private readonly redis: Redis) {}

  async create(session: Omit<DashboardSession, 'csrfToken'>): Promise<{ id: string; session: DashboardSession }> {
    const id = randomBytes(32).toString('base64url');
    const full = { ...session, csrfToken: randomBytes(24).toString('base64url') };
    const ttl = Math.max(1, Math.ceil((session.expiresAt - Date.now()) / 1000));
    await this.redis.set(`dash:session:${hash(id)}`, JSON.stringify(full), 'EX', ttl);
    return { id, session: full };
  }

  async find(id: string): Promise<DashboardSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const raw = await this.redis.get(`dash:session:${hash(id)}`);
    if (!raw) return null;
    const session = JSON.parse(raw) as DashboardSession;
    return session.expiresAt > Date.now() ? session : null;
  }

  /** Ends the session; returns what it held (to revoke its tokens). */
  async end(id: string): Promise<DashboardSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const raw = await this.redis.getdel(`dash:session:${hash(id)}`);
    return raw ? (JSON.parse(raw) as DashboardSession) : null;
  }
}
