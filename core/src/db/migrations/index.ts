import { Migration20261122ApiKeyRateLimit } from './Migration20261122ApiKeyRateLimit';
import { Migration20261122FaceSearch } from './Migration20261122FaceSearch';
import { Migration20261122Initial } from './Migration20261122Initial';
import { Migration20261122VideoClipping } from './Migration20261122VideoClipping';
import { Migration20261123FaceDescriptorVersion } from './Migration20261123FaceDescriptorVersion';
import { Migration20261123PublishedPhotoCount } from './Migration20261123PublishedPhotoCount';
import { Migration20261123RequestIdPerEvent } from './Migration20261123RequestIdPerEvent';
import { Migration20261123ReadOnlyApiKeys } from './Migration20261123ReadOnlyApiKeys';
import { Migration20261123Administration } from './Migration20261123Administration';
import { Migration20261124ArchivedUsage } from './Migration20261124ArchivedUsage';
import { Migration20261124FaceQuality } from './Migration20261124FaceQuality';
import { Migration20261127VideoShotChanges } from './Migration20261127VideoShotChanges';
import { Migration20261127StartList } from './Migration20261127StartList';
import { Migration20261127StartListBibReads } from './Migration20261127StartListBibReads';
import { Migration20261127EventContentVersion } from './Migration20261127EventContentVersion';
import { Migration20261127LocalCredentials } from './Migration20261127LocalCredentials';
import { Migration20261127PhotoReview } from './Migration20261127PhotoReview';

/** Every migration, in order. */
export const MIGRATIONS = [
  { name: 'Migration20261122Initial', class: Migration20261122Initial },
  { name: 'Migration20261122ApiKeyRateLimit', class: Migration20261122ApiKeyRateLimit },
  { name: 'Migration20261122FaceSearch', class: Migration20261122FaceSearch },
  { name: 'Migration20261122VideoClipping', class: Migration20261122VideoClipping },
  { name: 'Migration20261123RequestIdPerEvent', class: Migration20261123RequestIdPerEvent },
  { name: 'Migration20261123PublishedPhotoCount', class: Migration20261123PublishedPhotoCount },
  { name: 'Migration20261123ReadOnlyApiKeys', class: Migration20261123ReadOnlyApiKeys },
  { name: 'Migration20261123FaceDescriptorVersion', class: Migration20261123FaceDescriptorVersion },
  { name: 'Migration20261123Administration', class: Migration20261123Administration },
  { name: 'Migration20261124ArchivedUsage', class: Migration20261124ArchivedUsage },
  { name: 'Migration20261124FaceQuality', class: Migration20261124FaceQuality },
  { name: 'Migration20261127VideoShotChanges', class: Migration20261127VideoShotChanges },
  { name: 'Migration20261127StartList', class: Migration20261127StartList },
  { name: 'Migration20261127StartListBibReads', class: Migration20261127StartListBibReads },
  { name: 'Migration20261127EventContentVersion', class: Migration20261127EventContentVersion },
  { name: 'Migration20261127LocalCredentials', class: Migration20261127LocalCredentials },
  { name: 'Migration20261127PhotoReview', class: Migration20261127PhotoReview },
];
