import { Config, embeddedIdentityIssuer } from '@em/core';
import { SqlAccountsRepository, SqlLocalCredentialsRepository } from '@em/core/data';
import {
  LocalAccountsService,
  MemorySignInCounters,
  setPasswordLink,
  SignInDevices,
  SignInThrottle,
} from '@em/identity';
import { randomBytes } from 'node:crypto';
import type { CommandContext } from './command';

/** The embedded identity provider runs (npm start without an identity provider configured). */
export const embeddedSignIn = (cfg: Config) => !!cfg.IDENTITY_COOKIE_SECRET;

/** A one-time set-password link of the embedded provider for `email`. */
export async function setPasswordLinkFor(ctx: Pick<CommandContext, 'cfg' | 'orm'>, email: string) {
  if (!embeddedSignIn(ctx.cfg))
    throw new Error('set-password works with the embedded identity provider only (npm start without OAUTH_ISSUER)');
  const em = ctx.orm.em.fork();
  // The CLI never signs anyone in: its throttle and devices are never consulted.
  const throttle = new SignInThrottle(new MemorySignInCounters(), { perAccount: 1, perAddress: 1, windowSeconds: 1 });
  const accounts = new LocalAccountsService(
    new SqlAccountsRepository(() => em),
    new SqlLocalCredentialsRepository(() => em),
    throttle,
    new SignInDevices(randomBytes(32).toString('base64url')),
    {
      setPasswordLinkHours: ctx.cfg.SET_PASSWORD_LINK_HOURS,
    },
  );
  const { token, email: normalised, expiresAt } = await accounts.issueSetPasswordToken(email);
  return { email: normalised, expiresAt, url: setPasswordLink(embeddedIdentityIssuer(ctx.cfg), token) };
}
