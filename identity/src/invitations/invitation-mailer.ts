import type { InvitationMailJob } from '@em/core/jobs';
import type { MailsSentCounter } from './mails-sent-counter';
import { LocalAccountsService, setPasswordLink } from '../accounts/local-accounts.service';

/** A plain-text mail; nodemailer's SMTP transport in the service, a list in unit tests. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  sendMail(mail: OutgoingMail): Promise<unknown>;
}

export interface InvitationMailerOptions {
  from: string;
  /** The embedded provider's issuer: set-password links are its pages. */
  issuer: string;
  dashboardUrl: string;
  /** Invitation mails one organisation may send a day: an admin's account must not become a spam relay. */
  perOrganisationPerDay: number;
}

/** The organisation has mailed its day's invitations: retrying will not help today. */
export class InvitationCapReached extends Error {}

const DAY_SECONDS = 24 * 3600;

/** What an organiser typed must not become a header or a forged line break in a mail. */
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;
const plain = (value: string, max: number) => value.replace(CONTROL_CHARACTERS, ' ').trim().slice(0, max);

/**
 * Mails a member invited to an organisation: a one-time set-password link when the account has no
 * password yet (the link proves the address, as the CLI's does), else a note to sign in. Knows
 * nothing of SMTP or queues.
 */
export class InvitationMailer {
  constructor(
    private readonly accounts: Pick<LocalAccountsService, 'hasPassword' | 'issueSetPasswordToken'>,
    private readonly transport: MailTransport,
    private readonly sentToday: MailsSentCounter,
    private readonly opts: InvitationMailerOptions,
  ) {}

  async send(invite: InvitationMailJob): Promise<'set-password link' | 'sign-in note'> {
    const counter = `invitation-mails:${invite.orgId}`;
    if ((await this.sentToday.count(counter)) >= this.opts.perOrganisationPerDay) {
      throw new InvitationCapReached(
        `organisation ${invite.orgId} has sent its ${this.opts.perOrganisationPerDay} invitation mails of the day`,
      );
    }
    const organisation = plain(invite.organisationName, 100) || 'An organisation';
    const as = invite.role === 'admin' ? 'an admin' : 'a member';
    const signIn = `Sign in to the organisation dashboard at ${this.opts.dashboardUrl}`;
    let text: string;
    let kind: 'set-password link' | 'sign-in note';
    if (await this.accounts.hasPassword(invite.email)) {
      kind = 'sign-in note';
      text = `${organisation} added you as ${as}.\n\n${signIn} with this e-mail address and your password.\n`;
    } else {
      kind = 'set-password link';
      const { token, expiresAt } = await this.accounts.issueSetPasswordToken(invite.email);
      text =
        `${organisation} invited you as ${as}.\n\n` +
        `Choose your password here (the link works once, until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC):\n` +
        `${setPasswordLink(this.opts.issuer, token)}\n\n` +
        `${signIn} with this e-mail address and that password.\n\n` +
        `If you did not expect this, ignore this mail: nothing happens without the link.\n`;
    }
    await this.transport.sendMail({
      from: this.opts.from,
      to: invite.email,
      subject: `${organisation} invited you to its event photos dashboard`,
      text,
    });
    await this.sentToday.add(counter, DAY_SECONDS);
    return kind;
  }
}
