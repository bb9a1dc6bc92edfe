import { Migration } from '@mikro-orm/migrations';

/** Per-key rate limit (read calls per window); null keeps the platform default. */
export class Migration20261122ApiKeyRateLimit extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "api_keys" add column "rate_limit" int null');
    this.addSql(
      'alter table "api_keys" add constraint "api_keys_rate_limit_positive" check ("rate_limit" is null or "rate_limit" > 0)',
    );
  }
}
