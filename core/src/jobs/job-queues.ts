import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config';
import { connectRedis } from '../redis';
import { admitFairShare, releaseFairShare } from './fair-share';
import { FairShareJob, JobPayload, JobResult, jobIdOf, jobOptions, JOBS, QUEUE_NAMES, QueueName } from './registry';

/** BullMQ, required on first use (a queue opened): a service that queues nothing at start does not run its modules. */
export function loadBullmq(): typeof import('bullmq') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
  return require('bullmq') as typeof import('bullmq');
}

/** What a service needs to queue work: fakes in unit tests implement just this. */
export interface JobProducer {
  enqueue<Q extends QueueName>(name: Q, payload: JobPayload<Q>): Promise<unknown>;
}

/**
 * The queues as producers see them (subgraphs, CLI, launcher): one connection, a BullMQ queue per
 * registry entry opened on first use, and one typed `enqueue` that reads the registry.
 */
export class JobQueues implements JobProducer {
  private readonly connection: Redis;
  private readonly opened = new Map<QueueName, Queue>();

  constructor(redisUrl: string) {
    this.connection = connectRedis(redisUrl);
  }

  /** The producers' connection (not a blocking one), for values that travel beside jobs (a selfie's image). */
  get redis(): Redis {
    return this.connection;
  }

  queue<Q extends QueueName>(name: Q): Queue<JobPayload<Q>, JobResult<Q>> {
    let queue = this.opened.get(name);
    if (!queue)
      this.opened.set(name, (queue = new (loadBullmq().Queue)(JOBS[name].queue, { connection: this.connection })));
    return queue as Queue<JobPayload<Q>, JobResult<Q>>;
  }

  /**
   * Queues a job with its registry options. When the queue derives job ids from the payload, a job
   * whose id is waiting or running already is left alone (returns undefined); a finished (or
   * finally failed) one is replaced by a fresh job.
   */
  async enqueue<Q extends QueueName>(
    name: Q,
    payload: JobPayload<Q>,
  ): Promise<Job<JobPayload<Q>, JobResult<Q>> | undefined> {
    const queue = this.queue(name) as Queue;
    const jobId = jobIdOf(name, payload);
    if (jobId) {
      const existing = await queue.getJob(jobId);
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return undefined;
        await existing.remove();
      }
    }
    const caller = (payload as FairShareJob).caller;
    const shared = JOBS[name].fairShare && jobId && caller ? { caller, jobId } : null;
    const priority = shared ? await admitFairShare(this.connection, JOBS[name].queue, shared.caller, shared.jobId) : 0;
    try {
      return await queue.add(JOBS[name].job, payload, { ...jobOptions(name, payload), ...(priority && { priority }) });
    } catch (err) {
      // Not queued: it holds no share of its caller's.
      if (shared)
        await releaseFairShare(this.connection, JOBS[name].queue, shared.caller, shared.jobId).catch(() => undefined);
      throw err;
    }
  }

  /** Creates or updates the schedule of every repeating job (idempotent: one schedule per entry, updated in place). */
  async scheduleRepeatingJobs(cfg: Pick<Config, 'CLIP_RETENTION_SWEEP_SECONDS'>): Promise<void> {
    for (const name of QUEUE_NAMES) {
      const { repeat, job } = JOBS[name];
      if (repeat)
        await this.queue(name).upsertJobScheduler(
          repeat.schedulerId,
          { every: repeat.everyMs(cfg) },
          { name: job, opts: jobOptions(name) },
        );
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.opened.values()].map((q) => q.close()));
    this.connection.disconnect();
  }
}
