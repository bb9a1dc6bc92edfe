import { Migration } from '@mikro-orm/migrations';

/** An API key may be limited to a list of events (a participant page's key: its event); null = every event. */
export class Migration20261127ApiKeyEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "api_keys" add column "event_ids" integer[] null');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "api_keys" drop column "event_ids"');
  }
}
