import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail as the SMTP server received it: its envelope recipients, subject and decoded text. */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

/** Quoted-printable (what nodemailer uses for long lines) back to the text. */
const unquote = (body: string) =>
  body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * A real SMTP server on a free port (nodemailer's `smtp-server`), keeping what it receives: the
 * platform mails through it as it would through any relay.
 */
export async function startMailbox() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head, ...body] = raw.split(/\r?\n\r?\n/);
        const headers = head.replace(/\r?\n[ \t]+/g, ' ');
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/im.exec(headers)?.[1] ?? '',
          text: unquote(body.join('\n\n')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The first mail to `address`, waited for up to `timeoutMs`. */
    async mailTo(address: string, timeoutMs = 30_000): Promise<ReceivedMail> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const mail = mails.find((m) => m.to.includes(address));
        if (mail) return mail;
        if (Date.now() > until) throw new Error(`no mail to ${address} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
