import { DeleteEventProgress, jobIdOf, JobQueues } from '@em/core/jobs';
import { EventDeletionJobs, EventDeletionStatus } from './event-deletion';

const STATES: Record<string, EventDeletionStatus['state']> = { active: 'running', completed: 'done', failed: 'failed' };

/** Deletion jobs on the `eventDeletion` queue of the job registry; the ml-worker runs them. */
export class QueuedEventDeletions implements EventDeletionJobs {
  /** `jobs` is opened on first use (most CLI commands never need Redis). */
  constructor(private readonly queues: () => JobQueues) {}

  private get jobs(): JobQueues {
    return this.queues();
  }

  async start(eventId: number, orgId: number): Promise<void> {
    await this.jobs.enqueue('eventDeletion', { eventId, orgId });
  }

  async status(eventId: number): Promise<EventDeletionStatus | null> {
    const job = await this.jobs.queue('eventDeletion').getJob(jobIdOf('eventDeletion', { eventId, orgId: 0 })!);
    if (!job) return null;
    const state = STATES[await job.getState()] ?? 'queued';
    const progress = (typeof job.progress === 'object' ? job.progress : {}) as Partial<DeleteEventProgress>;
    const result = typeof job.returnvalue === 'object' && job.returnvalue ? job.returnvalue : null;
    const found = result?.objectsFound ?? progress.objectsFound ?? 0;
    const deleted = result?.objectsDeleted ?? progress.objectsDeleted ?? 0;
    const percent = state === 'done' ? 100 : found ? Math.floor((deleted / found) * 99) : 0;
    return {
      eventId,
      orgId: job.data.orgId,
      state,
      percent,
      objectsDeleted: deleted,
      objectsFound: found,
      error: state === 'failed' ? 'The deletion failed; run deleteEvent again to retry' : null,
    };
  }
}
