import { Migration } from '@mikro-orm/migrations';

/**
 * The organiser's photo review. `photos.hidden_at`: a hidden photo is unpublished (`published_at`
 * null, so every participant read, partial index and the published count leave it out at once) and
 * go-live or the photo job never publish it again until it is unhidden.
 * `audit_log`: who (an account, an API key or the platform operator of the CLI) changed what (an
 * action, a photo, a detail) and when; kept when the event or photo is gone (no foreign keys but the
 * organisation's), read newest first per organisation.
 */
export class Migration20261127PhotoReview extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "photos" add column "hidden_at" timestamptz null');
    this.addSql(`create table "audit_log" (
      "id" bigserial primary key,
      "organisation_id" int not null,
      "event_id" int null,
      "actor" text not null check ("actor" in ('account', 'api_key', 'operator')),
      "account_id" int null,
      "api_key_id" int null,
      "action" text not null,
      "photo_id" uuid null,
      "detail" jsonb null,
      "created_at" timestamptz not null default now(),
      constraint "audit_log_organisation_id_foreign" foreign key ("organisation_id") references "organisations" ("id") on update cascade on delete cascade)`);
    this.addSql('create index "audit_log_organisation_id_id_index" on "audit_log" ("organisation_id", "id" desc)');
  }

  override async down(): Promise<void> {
    this.addSql('drop table "audit_log"');
    this.addSql('alter table "photos" drop column "hidden_at"');
  }
}
