import type { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** Models that belong to a grant: revoking the grant (sign-out, revocation) deletes them all. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/**
 * oidc-provider's storage in Redis (sessions, interactions, grants, codes, tokens), each with its
 * expiry, so a restart of the provider keeps signed-in users and any number of processes share it.
 */
export function redisAdapterFactory(redis: Redis): new (name: string) => Adapter {
  return class RedisAdapter implements Adapter {
    constructor(readonly name: string) {}

    key(id: string) {
      return `oidc:${this.name}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
      const key = this.key(id);
      const multi = redis.multi();
      if (expiresIn) multi.set(key, JSON.stringify(payload), 'EX', expiresIn);
      else multi.set(key, JSON.stringify(payload));
      if (GRANTABLE.has(this.name) && payload.grantId) {
        const grantKey = `oidc:grant:${payload.grantId}`;
        multi.rpush(grantKey, key);
        if (expiresIn && expiresIn > (await redis.ttl(grantKey))) multi.expire(grantKey, expiresIn);
      }
      if (payload.uid) multi.set(`oidc:uid:${payload.uid}`, id, 'EX', expiresIn || 3600);
      if (payload.userCode) multi.set(`oidc:userCode:${payload.userCode}`, id, 'EX', expiresIn || 3600);
      await multi.exec();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const data = await redis.get(this.key(id));
      return data ? (JSON.parse(data) as AdapterPayload) : undefined;
    }

    async findByUid(uid: string) {
      const id = await redis.get(`oidc:uid:${uid}`);
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(userCode: string) {
      const id = await redis.get(`oidc:userCode:${userCode}`);
      return id ? this.find(id) : undefined;
    }

    async destroy(id: string) {
      await redis.del(this.key(id));
    }

    async revokeByGrantId(grantId: string) {
      const grantKey = `oidc:grant:${grantId}`;
      const keys = await redis.lrange(grantKey, 0, -1);
      await redis.del(...keys, grantKey);
    }

    async consume(id: string) {
      const found = await this.find(id);
      if (found)
        await redis.set(this.key(id), JSON.stringify({ ...found, consumed: Math.floor(Date.now() / 1000) }), 'KEEPTTL');
    }
  };
}
