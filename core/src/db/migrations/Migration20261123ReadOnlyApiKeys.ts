import { Migration } from '@mikro-orm/migrations';

/** API keys may be read-only (the participant page's browser key): writes are refused for them. */
export class Migration20261123ReadOnlyApiKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "api_keys" add column "read_only" boolean not null default false');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "api_keys" drop column "read_only"');
  }
}
