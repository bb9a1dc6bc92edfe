import { Migration } from '@mikro-orm/migrations';

/** Local accounts of the embedded identity provider: a password (scrypt) and a pending set-password link per account. */
export class Migration20261127LocalCredentials extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "local_credentials" (
      "account_id" int primary key references "accounts" ("id") on delete cascade,
      "password_hash" text null,
      "email_verified" boolean not null default false,
      "set_password_token_hash" text null unique,
      "set_password_expires_at" timestamptz null,
      "updated_at" timestamptz not null default now())`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "local_credentials"');
  }
}
