import { auditActor, ContentVersionMirror, ContentVersions, Principal, rejudgeEventReads } from '@em/core';
import { ApiKeyService } from './api-keys/api-key-service';
import {
  EntityManagerSource,
  SqlAccountsRepository,
  SqlApiKeysRepository,
  SqlAuditLogRepository,
  SqlEventsRepository,
  SqlMembershipsRepository,
  SqlOrganisationsRepository,
  SqlPhotosRepository,
  SqlStartListRepository,
  SqlUsageRepository,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { ApiKeysService } from './api-keys/api-keys.service';
import { AccountService } from './account/account.service';
import { EventAdminService } from './events/event-admin.service';
import { EventCoverService } from './events/event-cover.service';
import { QueuedEventDeletions } from './events/event-deletion-queue';
import { EventsService } from './events/events.service';
import { MembersService } from './members/members.service';
import { OrganisationsService } from './organisations/organisations.service';
import { StartListService } from './start-list/start-list.service';
import { UsageService } from './usage/usage.service';
import { AuditLogService } from './audit/audit-log.service';

export type { EventSettingsInput } from './events/event-settings';
export type { EventView } from './events/event-view';
export type { EventDeletionStatus } from './events/event-deletion';
export type { OrganisationView } from './organisations/organisations.service';
export type { UsageReport } from './usage/usage.service';
export type { StartListImportResult, StartListMode } from './start-list/start-list.service';
export type { StartListLineError } from './start-list/start-list-csv';

/**
 * The CLI's principal: whoever runs the organiser CLI holds the platform's database credentials,
 * so it acts as a platform administrator, through the same services and guard as the API.
 */
export const PLATFORM_OPERATOR: Principal = {
  orgId: null,
  kind: 'account',
  scopes: ['events:read', 'events:write'],
  orgRoles: {},
  platformAdmin: true,
};

export interface AdministrationDependencies {
  /** The entity manager of the current unit of work (the request's, or a CLI fork). */
  em: EntityManagerSource;
  store: ObjectStore;
  /** The job queues, opened on first use. */
  jobs: () => JobQueues;
  maxApiKeysPerOrganisation: number;
  /** Where content versions are mirrored for readers (see ContentVersions); null only in tests without readers. */
  redis: ContentVersionMirror | null;
  onKeyChanged?: (keyId: number) => Promise<void>;
  /** Invitations are mailed (SMTP configured with the embedded provider); the CLI prints its link instead. */
  mailInvitations?: boolean;
}

/** The services of the events subgraph, on SQL repositories: wired once for the subgraph, the organiser CLI and the demo seed. */
export function administrationServices(deps: AdministrationDependencies) {
  const repos = {
    organisations: new SqlOrganisationsRepository(deps.em),
    accounts: new SqlAccountsRepository(deps.em),
    memberships: new SqlMembershipsRepository(deps.em),
    apiKeys: new SqlApiKeysRepository(deps.em),
    events: new SqlEventsRepository(deps.em),
    usage: new SqlUsageRepository(deps.em),
    startLists: new SqlStartListRepository(deps.em),
    photos: new SqlPhotosRepository(deps.em),
    audit: new SqlAuditLogRepository(deps.em),
  };
  const versions = new ContentVersions(repos.events, deps.redis);
  const keyService = new ApiKeyService(
    { keys: repos.apiKeys, organisations: repos.organisations, events: repos.events },
    deps.maxApiKeysPerOrganisation,
    deps.onKeyChanged,
  );
  return {
    repos,
    keyService,
    organisations: new OrganisationsService(repos),
    events: new EventsService(repos.events, deps.store),
    eventAdmin: new EventAdminService(repos, new QueuedEventDeletions(deps.jobs), deps.store, versions),
    covers: new EventCoverService(repos.events, deps.store, versions),
    members: new MembersService(
      repos,
      deps.mailInvitations
        ? { send: async (invite) => void (await deps.jobs().enqueue('invitationMail', invite)) }
        : null,
    ),
    usage: new UsageService(repos.usage),
    apiKeys: new ApiKeysService(keyService),
    account: new AccountService(repos),
    // A new start list re-judges the event's stored bib reads at once (no OCR).
    startLists: new StartListService(repos.events, repos.startLists, async (eventId, change) => {
      // The event's BIBs may change: participants' cached answers must not outlive them.
      await rejudgeEventReads(repos.photos, repos.startLists, eventId);
      await versions.bumpContentVersion(eventId);
      const detail = { mode: change.mode, imported: change.imported, total: change.total, skipped: change.skipped };
      await repos.audit.record({
        orgId: change.orgId,
        eventId,
        actor: auditActor(change.principal),
        action: 'start_list.import',
        photoId: null,
        detail,
      });
    }),
    auditLog: new AuditLogService(repos.audit),
  };
}

export type AdministrationServices = ReturnType<typeof administrationServices>;
