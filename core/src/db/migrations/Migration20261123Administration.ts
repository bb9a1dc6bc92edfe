import { Migration } from '@mikro-orm/migrations';

/**
 * Administration: platform administrators (may create organisations), and the mark of
 * an event being deleted (hidden from every call while its background job removes rows and objects).
 */
export class Migration20261123Administration extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "accounts" add column if not exists "platform_admin" boolean not null default false');
    this.addSql('alter table "events" add column if not exists "deleting_at" timestamptz null');
  }
}
