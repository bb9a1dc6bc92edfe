import { Migration } from '@mikro-orm/migrations';

/**
 * Usage outlives a deleted event: the deletion job copies the event's monthly counts here before its
 * rows go, so the organisation's usage report (and its bill) stays the same.
 */
export class Migration20261124ArchivedUsage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "archived_usage" (
      "organisation_id" int not null references "organisations" ("id") on delete cascade,
      "event_id" int not null,
      "month" date not null,
      "face_searches_billed" int not null,
      "photos_processed" int not null,
      "videos_indexed" int not null,
      "clips_made" int not null,
      primary key ("event_id", "month"))`);
    this.addSql(
      'create index if not exists "archived_usage_organisation_month" on "archived_usage" ("organisation_id", "month")',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "archived_usage"');
  }
}
