import { JobProducer } from '../../jobs/job-queues';
import { JobPayload, QueueName } from '../../jobs/registry';

/** Records the jobs queued; `failNext` makes the next enqueue throw (Redis down). */
export class RecordingJobProducer implements JobProducer {
  readonly queued: Array<{ name: QueueName; payload: unknown }> = [];
  failNext = false;

  async enqueue<Q extends QueueName>(name: Q, payload: JobPayload<Q>): Promise<unknown> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('queue unavailable');
    }
    this.queued.push({ name, payload });
    return undefined;
  }

  of<Q extends QueueName>(name: Q): Array<JobPayload<Q>> {
    return this.queued.filter((j) => j.name === name).map((j) => j.payload as JobPayload<Q>);
  }
}
