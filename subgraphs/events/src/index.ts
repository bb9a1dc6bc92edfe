// The events subgraph as a library (its schema and services); `main.ts` runs it as a process.
import 'reflect-metadata';
export { buildEventsSchema } from './schema';
export { AccountService } from './account/account.service';
export { ApiKeysService } from './api-keys/api-keys.service';
export { EventsService } from './events/events.service';
export { PingService } from './ping/ping.service';
export { administrationServices, PLATFORM_OPERATOR } from './administration';
export type {
  AdministrationServices,
  EventSettingsInput,
  EventView,
  EventDeletionStatus,
  OrganisationView,
  UsageReport,
} from './administration';
export type { StartListImportResult, StartListLineError, StartListMode } from './administration';
