import { AppError } from '@em/core';
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from './passwords';
import type { AccountsRepository, LocalCredentialsRepository } from '@em/core/data';
import { createHash, randomBytes } from 'node:crypto';
import { SignInDevices } from './sign-in-devices';
import { SignInThrottle } from './sign-in-throttle';

/** What the provider tells a client about a local account (the ID token's and access token's claims). */
export interface LocalAccountClaims {
  sub: string;
  email: string;
  email_verified: boolean;
}

/** A success carries the browser's new list of device tokens (`SignInDevices`), for its next sign-in. */
export type SignInOutcome =
  { ok: true; subject: string; devices: string } | { ok: false; reason: 'invalid' | 'throttled' };

/** The embedded issuer's subjects, as `mint-token` names them too: one identity system, one key. */
const SUBJECT_PREFIX = 'embedded|';
const MAX_EMAIL_LENGTH = 320;
// eslint-disable-next-line no-control-regex -- the control characters are what is matched
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** The account's subject at the platform (linked at its first sign-in), else the embedded one. */
export const subjectOf = (account: { id: number; subject: string | null }) =>
  account.subject ?? `${SUBJECT_PREFIX}${account.id}`;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Local accounts of the embedded identity provider: the platform's own `accounts` with a password
 * (scrypt) in `local_credentials`. Members set their password through a one-time link (the CLI
 * prints it); sign-in is throttled per account and client address, and per browser for those the account signed in
 * from before. Knows nothing of HTTP or OIDC.
 */
export class LocalAccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly credentials: LocalCredentialsRepository,
    private readonly throttle: SignInThrottle,
    private readonly devices: SignInDevices,
    private readonly opts: { setPasswordLinkHours: number; now?: () => Date },
  ) {}

  private now() {
    return this.opts.now?.() ?? new Date();
  }

  /**
   * Checks an e-mail and password. An unknown account, one without a password, an inactive one
   * and a wrong password all answer "invalid" after the same scrypt work, so the answer does not
   * tell which e-mails have accounts. `devices`: the browser's device tokens from its last sign-ins, if any; a token
   * counts for the account's current password only (one minted before a password change is none).
   */
  async signIn(rawEmail: string, password: string, clientAddress: string, devices?: string): Promise<SignInOutcome> {
    const email = rawEmail.trim().toLowerCase().slice(0, MAX_EMAIL_LENGTH);
    // No account's address holds a control character (a NUL cannot even reach Postgres): nothing to look up.
    const account = email && !CONTROL_CHARACTER.test(email) ? await this.accounts.findByEmail(email) : null;
    const credential = account ? await this.credentials.find(account.id) : null;
    const device = credential?.passwordHash ? this.devices.deviceOf(devices, email, credential.passwordHash) : null;
    const counted = await this.throttle.attempt(email, clientAddress, device);
    if (!counted) return { ok: false, reason: 'throttled' };
    const stored = credential?.passwordHash ?? (await decoyPasswordHash());
    const matches = await verifyPassword(password, stored);
    // A failure stays counted (every try is, before its password is checked).
    if (!account || !account.active || !credential?.passwordHash || !matches) return { ok: false, reason: 'invalid' };
    await this.throttle.succeeded(counted);
    return {
      ok: true,
      subject: subjectOf(account),
      devices: this.devices.remember(devices, email, credential.passwordHash),
    };
  }

  /** Whether a client address may start one more sign-in now (each one is kept until it ends or expires). */
  mayStartSignIn(clientAddress: string): Promise<boolean> {
    return this.throttle.startAllowed(clientAddress);
  }

  /** The claims of a subject this provider issued, or null (unknown or inactive account). */
  async claims(subject: string): Promise<LocalAccountClaims | null> {
    let account = await this.accounts.findBySubject(subject);
    if (!account && subject.startsWith(SUBJECT_PREFIX)) {
      const id = Number(subject.slice(SUBJECT_PREFIX.length));
      const unlinked = Number.isSafeInteger(id) && id > 0 ? await this.accounts.findById(id) : null;
      account = unlinked && unlinked.subject === null ? unlinked : null;
    }
    if (!account || !account.active) return null;
    const credential = await this.credentials.find(account.id);
    return { sub: subject, email: account.email, email_verified: credential?.emailVerified ?? false };
  }

  /**
   * A one-time set-password token for the account of `email` (created when missing, as an invitation
   * does), valid SET_PASSWORD_LINK_HOURS; an earlier link of the account stops working.
   */
  async issueSetPasswordToken(rawEmail: string): Promise<{ token: string; email: string; expiresAt: Date }> {
    const email = rawEmail.trim().toLowerCase();
    if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email))
      throw new AppError('BAD_USER_INPUT', 'Not an e-mail address', { field: 'email' });
    const account = await this.accounts.findOrCreate(email);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.now().getTime() + this.opts.setPasswordLinkHours * 3600_000);
    await this.credentials.storeSetPasswordToken(account.id, hashToken(token), expiresAt);
    return { token, email, expiresAt };
  }

  /** Whether the account of `email` has a password already (it signs in; an invitation needs no link). */
  async hasPassword(rawEmail: string): Promise<boolean> {
    const account = await this.accounts.findByEmail(rawEmail.trim().toLowerCase());
    return !!account && !!(await this.credentials.find(account.id))?.passwordHash;
  }

  /** The e-mail a set-password token is for, or null when it is unknown, used or expired. */
  async setPasswordTokenEmail(token: string): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
    const accountId = await this.credentials.findBySetPasswordToken(hashToken(token), this.now());
    return accountId ? ((await this.accounts.findById(accountId))?.email ?? null) : null;
  }

  /**
   * Sets the password of a link's account with its token (once); the account's e-mail is verified by it. The token is
   * looked up before the password is hashed (anyone may post this form: a made-up token costs no scrypt). The browser
   * that used the link (its member proved they hold the address) is one the account signed in from: the result is its
   * new list of device tokens (`devices`, its list so far).
   */
  async setPassword(token: string, password: string, devices?: string): Promise<{ devices: string }> {
    const problem = passwordProblem(password);
    if (problem) throw new AppError('BAD_USER_INPUT', problem, { field: 'password' });
    const notValid = () => new AppError('NOT_FOUND', 'This link is not valid (used, expired or mistyped)');
    const email = await this.setPasswordTokenEmail(token);
    if (!email) throw notValid();
    const passwordHash = await hashPassword(password);
    // The same token, still unused: two posts of one link set one password.
    const accountId = await this.credentials.setPasswordWithToken(hashToken(token), passwordHash, this.now());
    if (accountId === null) throw notValid();
    return { devices: this.devices.remember(devices, email, passwordHash) };
  }

  /** Sets a password directly (the demo seed): whoever runs it holds the database and vouches for the address. */
  async setPasswordAsOperator(rawEmail: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AppError('BAD_USER_INPUT', problem, { field: 'password' });
    const account = await this.accounts.findOrCreate(rawEmail.trim().toLowerCase());
    await this.credentials.setPassword(account.id, await hashPassword(password));
  }
}

/** The link a member opens to set a password at the embedded provider. */
export const setPasswordLink = (issuer: string, token: string) =>
  `${issuer.replace(/\/$/, '')}/set-password?token=${token}`;
