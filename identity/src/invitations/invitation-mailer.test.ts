import { InMemoryAccountsRepository, InMemoryLocalCredentialsRepository } from '@em/core/testing';
import { LocalAccountsService } from '../accounts/local-accounts.service';
import { SignInDevices } from '../accounts/sign-in-devices';
import { MemorySignInCounters, SignInThrottle } from '../accounts/sign-in-throttle';
import { MemoryMailsSentCounter } from './mails-sent-counter';
import { InvitationCapReached, InvitationMailer, OutgoingMail } from './invitation-mailer';

function setup(perOrganisationPerDay = 5) {
  const accountsRepo = new InMemoryAccountsRepository();
  const credentials = new InMemoryLocalCredentialsRepository();
  const accounts = new LocalAccountsService(
    accountsRepo,
    credentials,
    new SignInThrottle(new MemorySignInCounters(), { perAccount: 3, perAddress: 10, windowSeconds: 60 }),
    new SignInDevices('a test secret of the identity provider'),
    { setPasswordLinkHours: 72, now: () => new Date('2026-05-17T09:00:00Z') },
  );
  const sent: OutgoingMail[] = [];
  let smtpDown = false;
  const mailer = new InvitationMailer(
    accounts,
    {
      sendMail: async (mail) => {
        if (smtpDown) throw new Error('connect ECONNREFUSED');
        sent.push(mail);
      },
    },
    new MemoryMailsSentCounter(),
    {
      from: 'Races <no-reply@races.example>',
      issuer: 'https://id.races.example',
      dashboardUrl: 'https://races.example/dashboard/',
      perOrganisationPerDay,
    },
  );
  const invite = { orgId: 7, organisationName: 'City Marathon', email: 'new@example.org', role: 'user' };
  return { accounts, accountsRepo, credentials, mailer, sent, invite, smtpDown: (down: boolean) => (smtpDown = down) };
}

const linkIn = (text: string) => /https:\/\/id\.races\.example\/set-password\?token=([\w-]+)/.exec(text)?.[1];

describe('InvitationMailer', () => {
  it('mails an account without a password a one-time link that sets it', async () => {
    const { mailer, sent, invite, accounts } = setup();
    expect(await mailer.send(invite)).toBe('set-password link');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ from: 'Races <no-reply@races.example>', to: 'new@example.org' });
    expect(sent[0].subject).toContain('City Marathon');
    expect(sent[0].text).toContain('as a member');
    expect(sent[0].text).toContain('2026-05-20 09:00 UTC');
    expect(sent[0].text).toContain('https://races.example/dashboard/');
    const token = linkIn(sent[0].text)!;
    expect(await accounts.setPasswordTokenEmail(token)).toBe('new@example.org');
  });

  it('mails an account that has a password a note to sign in, and no link (an admin cannot reset it)', async () => {
    const { mailer, sent, invite, accountsRepo, credentials } = setup();
    const account = accountsRepo.add({ email: 'known@example.org', subject: null });
    await credentials.setPassword(account.id, 'scrypt$stored');
    expect(await mailer.send({ ...invite, email: 'known@example.org', role: 'admin' })).toBe('sign-in note');
    expect(sent[0].text).toContain('as an admin');
    expect(linkIn(sent[0].text)).toBeUndefined();
    expect(sent[0].text).not.toContain('set-password');
  });

  it('keeps what an organiser typed out of the headers and line structure', async () => {
    const { mailer, sent, invite } = setup();
    await mailer.send({ ...invite, organisationName: 'Evil\r\nBcc: victim@example.org\r\n\r\nClick here' });
    expect(sent[0].subject).not.toMatch(/[\r\n]/);
    expect(sent[0].subject).toContain('Evil Bcc: victim@example.org Click here');
    expect(sent[0].text.split('\n')[0]).toBe('Evil Bcc: victim@example.org Click here invited you as a member.');
  });

  it('stops an organisation at its daily number of mails, counting only mails that went out', async () => {
    const { mailer, sent, invite, smtpDown } = setup(2);
    smtpDown(true);
    await expect(mailer.send(invite)).rejects.toThrow('ECONNREFUSED');
    smtpDown(false);
    await mailer.send(invite);
    await mailer.send({ ...invite, email: 'second@example.org' });
    await expect(mailer.send({ ...invite, email: 'third@example.org' })).rejects.toThrow(InvitationCapReached);
    expect(await mailer.send({ ...invite, orgId: 8, email: 'third@example.org' })).toBe('set-password link');
    expect(sent.map((m) => m.to)).toEqual(['new@example.org', 'second@example.org', 'third@example.org']);
  });

  it('a retried mail carries a new link, and the one of the failed try no longer works', async () => {
    const { mailer, sent, invite, accounts } = setup();
    await mailer.send(invite);
    await mailer.send(invite);
    const [first, second] = sent.map((m) => linkIn(m.text)!);
    expect(first).not.toBe(second);
    expect(await accounts.setPasswordTokenEmail(first)).toBeNull();
    expect(await accounts.setPasswordTokenEmail(second)).toBe('new@example.org');
  });
});
