import { clientMessage, connectRedis, Logger } from '@em/core';
import {
  FairShareJob,
  JobPayload,
  JobResult,
  JOBS,
  queuesOf,
  QueueName,
  QueuesOf,
  releaseFairShare,
  TracedJob,
  workerOptions,
} from '@em/core/jobs';
import { Job, Worker } from 'bullmq';

type Redis = ReturnType<typeof connectRedis>;

/** What the ml-worker does with one queue's jobs. */
export interface JobHandler<Q extends QueueName> {
  /** `progress` publishes how far a long job is (BullMQ job progress, read by status queries). */
  run(payload: JobPayload<Q>, progress: (value: object) => Promise<void>): Promise<JobResult<Q>>;
  /**
   * Records on the thing processed that its job failed for good (last attempt, or an
   * UnrecoverableError), with a reason a client may read; `fallback` stands in for internal errors.
   */
  onFinalFailure?: { fallback: string; record(payload: JobPayload<Q>, reason: string): Promise<unknown> };
}

/** A handler for every queue of the registry: a queue without one is a compile error. */
export type JobHandlers = { [Q in QueuesOf<'ml-worker'>]: JobHandler<Q> };

/** A job that will not run again: its last attempt failed, or it threw an UnrecoverableError. */
export const failedForGood = (job: Job, err: Error) =>
  err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
/** What a client may read of a job's failure: our own UnrecoverableError reasons and AppErrors; anything else is in the log only. */
export const clientReason = (err: Error, fallback: string) =>
  err.name === 'UnrecoverableError' ? err.message : clientMessage(err, fallback);

/**
 * One Worker per registry entry, run with the registry's options (`concurrency` overrides the
 * registry's for the queues it names, from this process's configuration); each gets its own
 * connection (workers block on Redis).
 */
export function startWorkers(
  handlers: JobHandlers,
  connect: () => Redis,
  logger: Logger,
  concurrency: Partial<Record<QueueName, number>> = {},
  /** Queues served elsewhere (the selfie queue, by the selfie threads themselves). */
  except: QueueName[] = [],
): Worker[] {
  return queuesOf('ml-worker')
    .filter((name) => !except.includes(name))
    .map((name) => startWorker(name, handlers[name] as JobHandler<typeof name>, connect(), logger, concurrency[name]));
}

/** One queue's Worker (a selfie thread runs the selfie queue's own). */
export function startWorker<Q extends QueueName>(
  name: Q,
  handler: JobHandler<Q>,
  connection: Redis,
  logger: Logger,
  concurrency?: number,
): Worker {
  const options = { ...workerOptions(name), ...(concurrency ? { concurrency } : {}) };
  const worker = new Worker<JobPayload<Q>, JobResult<Q>>(
    JOBS[name].queue,
    (job) => handler.run(job.data, (value) => job.updateProgress(value)),
    { connection, ...options },
  );
  const finalFailure = handler.onFinalFailure;
  if (finalFailure) {
    worker.on('failed', (job, err) => {
      if (job && failedForGood(job, err))
        void finalFailure.record(job.data, clientReason(err, finalFailure.fallback)).catch(() => undefined);
    });
  }
  if (JOBS[name].fairShare) {
    // The job stops holding a share of its caller's once it will not run again.
    const release = (job: Job) => {
      const caller = (job.data as FairShareJob).caller;
      if (caller && job.id) void releaseFairShare(connection, JOBS[name].queue, caller, job.id).catch(() => undefined);
    };
    worker.on('completed', release);
    worker.on('failed', (job, err) => {
      if (job && failedForGood(job, err)) release(job);
    });
  }
  const requestIdOf = (job: Job | undefined) => (job?.data as TracedJob | undefined)?.httpRequestId;
  worker.on('active', (job) =>
    logger.debug({ queue: worker.name, jobId: job.id, requestId: requestIdOf(job) }, 'job started'),
  );
  worker.on('completed', (job) =>
    logger.info(
      {
        queue: worker.name,
        jobId: job.id,
        requestId: requestIdOf(job),
        ms: (job.finishedOn ?? 0) - (job.processedOn ?? 0),
      },
      'job done',
    ),
  );
  worker.on('failed', (job, err) =>
    logger.warn(
      {
        queue: worker.name,
        jobId: job?.id,
        requestId: requestIdOf(job),
        attempts: job?.attemptsMade,
        err: err.message,
      },
      'job failed',
    ),
  );
  worker.on('error', (err) => logger.error({ queue: worker.name, err: err.message }, 'worker error'));
  return worker as Worker;
}
