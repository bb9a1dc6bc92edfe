import { Migration } from '@mikro-orm/migrations';

/**
 * Each event's content version: bumped whenever what a participant reads of the event changes
 * (photos published, hidden, deleted or their BIBs changed; a setting). REST answers carry it in
 * their ETag, and shared reads are cached under it.
 */
export class Migration20261127EventContentVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "events" add column if not exists "content_version" bigint not null default 1');
  }
}
