import { Config, connectRedis, Logger } from '@em/core';
import { InvitationMailJob, JobResult, JOBS, workerOptions } from '@em/core/jobs';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import { LocalAccountsService } from '../accounts/local-accounts.service';
import { RedisMailsSentCounter } from './mails-sent-counter';
import { InvitationCapReached, InvitationMailer } from './invitation-mailer';

/** One SMTP server is not flooded by a burst of invitations: mails beyond this wait their turn. */
const MAILS_PER_MINUTE = 30;

/** Runs the invitation-mail queue (SMTP_URL set): the events subgraph queues a job per invitation. */
export function startInvitationMailWorker(
  cfg: Config,
  parts: { accounts: LocalAccountsService; redis: Redis; issuer: string; dashboardUrl: string; logger: Logger },
): Worker {
  const mailer = new InvitationMailer(
    parts.accounts,
    nodemailer.createTransport(cfg.SMTP_URL),
    new RedisMailsSentCounter(parts.redis),
    {
      from: cfg.MAIL_FROM,
      issuer: parts.issuer,
      dashboardUrl: parts.dashboardUrl,
      perOrganisationPerDay: cfg.INVITATION_MAILS_PER_DAY,
    },
  );
  const worker = new Worker<InvitationMailJob, JobResult<'invitationMail'>>(
    JOBS.invitationMail.queue,
    async (job) => {
      try {
        return await mailer.send(job.data);
      } catch (err) {
        if (err instanceof InvitationCapReached) throw new UnrecoverableError(err.message);
        throw err;
      }
    },
    {
      connection: connectRedis(cfg.REDIS_URL),
      ...workerOptions('invitationMail'),
      limiter: { max: MAILS_PER_MINUTE, duration: 60_000 },
    },
  );
  worker.on('completed', (job, sent) => parts.logger.info({ orgId: job.data.orgId, sent }, 'invitation mailed'));
  worker.on('failed', (job, err) =>
    parts.logger.warn(
      { orgId: job?.data.orgId, attempts: job?.attemptsMade, err: err.message },
      'invitation mail failed',
    ),
  );
  return worker;
}
