import { AppError, ContentVersions, Principal } from '@em/core';
import {
  EventSettings,
  EventsRepository,
  guardOperation,
  guardOrganisationOperation,
  OrganisationsRepository,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { EventDeletionJobs, EventDeletionStatus } from './event-deletion';
import { DEFAULT_SETTINGS, EventSettingsInput, invalid, slugFromName, validateSettings } from './event-settings';
import { EventView, eventView } from './event-view';

export interface EventAdminRepositories {
  events: EventsRepository;
  organisations: Pick<OrganisationsRepository, 'findById'>;
}

/** An organisation admin's work on events: create, change settings, archive, delete (a background job). */
export class EventAdminService {
  constructor(
    private readonly repos: EventAdminRepositories,
    private readonly deletions: EventDeletionJobs,
    private readonly store: Pick<ObjectStore, 'publicUrl'>,
    private readonly versions: Pick<ContentVersions, 'bumpContentVersion'>,
  ) {}

  async create(principal: Principal, orgId: number, input: EventSettingsInput): Promise<EventView> {
    guardOrganisationOperation(principal, 'createEvent', orgId);
    if (!(await this.repos.organisations.findById(orgId))) throw new AppError('NOT_FOUND', 'Organisation not found');
    if (input.name === undefined || input.name === null) throw invalid('name', 'name is required');
    const patch = validateSettings(input, null);
    const slug = patch.slug ?? (await this.freeSlug(orgId, slugFromName(patch.name!)));
    if (patch.slug && (await this.repos.events.slugTaken(orgId, slug))) throw this.slugConflict(slug);
    const settings: EventSettings = { ...DEFAULT_SETTINGS, ...patch, name: patch.name!, slug };
    return eventView(await this.repos.events.create(orgId, settings), this.store);
  }

  async update(principal: Principal, orgId: number, eventId: number, input: EventSettingsInput): Promise<EventView> {
    const event = await guardOperation(this.repos.events, principal, 'updateEvent', orgId, eventId);
    const patch = validateSettings(input, event);
    if (patch.slug && patch.slug !== event.slug && (await this.repos.events.slugTaken(orgId, patch.slug, eventId)))
      throw this.slugConflict(patch.slug);
    const updated = (await this.repos.events.update(eventId, patch))!;
    await this.versions.bumpContentVersion(eventId);
    return eventView(updated, this.store);
  }

  async archive(principal: Principal, orgId: number, eventId: number): Promise<EventView> {
    await guardOperation(this.repos.events, principal, 'archiveEvent', orgId, eventId);
    const updated = (await this.repos.events.update(eventId, { status: 'archived' }))!;
    await this.versions.bumpContentVersion(eventId);
    return eventView(updated, this.store);
  }

  /**
   * Hides the event at once and queues the job that removes its objects and rows. Asking again
   * while it runs answers its status (the job is queued once).
   */
  async delete(principal: Principal, orgId: number, eventId: number, confirm: boolean): Promise<EventDeletionStatus> {
    guardOrganisationOperation(principal, 'deleteEvent', orgId);
    if (confirm !== true)
      throw invalid('confirm', 'Deleting an event removes its photos, videos and clips for good: send confirm: true');
    const deleting = await this.repos.events.findDeleting(eventId);
    if (!deleting || deleting.organisation.id !== orgId) {
      await guardOperation(this.repos.events, principal, 'deleteEvent', orgId, eventId);
      await this.repos.events.markDeleting(eventId, new Date());
      await this.versions.bumpContentVersion(eventId);
    }
    await this.deletions.start(eventId, orgId);
    return (
      (await this.deletions.status(eventId)) ?? {
        eventId,
        orgId,
        state: 'queued',
        percent: 0,
        objectsDeleted: 0,
        objectsFound: 0,
        error: null,
      }
    );
  }

  async deletionStatus(principal: Principal, orgId: number, eventId: number): Promise<EventDeletionStatus> {
    guardOrganisationOperation(principal, 'eventDeletion', orgId);
    const status = await this.deletions.status(eventId);
    if (!status || status.orgId !== orgId)
      throw new AppError('NOT_FOUND', 'No deletion of this event is known (finished deletions are kept for a day)');
    return status;
  }

  /** The slug, or the slug with -2, -3, ... when the organisation has it already. */
  private async freeSlug(orgId: number, base: string): Promise<string> {
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base.slice(0, 76)}-${n}`;
      if (!(await this.repos.events.slugTaken(orgId, candidate))) return candidate;
    }
  }

  private slugConflict(slug: string): AppError {
    return new AppError('CONFLICT', `The organisation already has an event with the slug ${slug}`, { field: 'slug' });
  }
}
