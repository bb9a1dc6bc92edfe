/** Where a deletion stands: queued, running (with progress), done or failed. */
export interface EventDeletionStatus {
  eventId: number;
  orgId: number;
  state: 'queued' | 'running' | 'done' | 'failed';
  /** 0 to 100. */
  percent: number;
  objectsDeleted: number;
  objectsFound: number;
  error: string | null;
}

/** The deletion jobs as the administration sees them (BullMQ in production, a fake in unit tests). */
export interface EventDeletionJobs {
  /** Queues the deletion (once: a deletion already queued or running is left alone). */
  start(eventId: number, orgId: number): Promise<void>;
  /** The latest deletion job of the event, or null. */
  status(eventId: number): Promise<EventDeletionStatus | null>;
}
