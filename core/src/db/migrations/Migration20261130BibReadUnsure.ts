import { Migration } from '@mikro-orm/migrations';

/**
 * A bib read under the reader's confidence bar is kept `unsure`: it counts (status `unconfirmed` until then) once
 * a photo taken near it in time holds the same number (core/src/bibs/bib-read-rule.ts; the photos repository's `settleUnsure`). The
 * partial index finds an event's unconfirmed reads without reading its other rows.
 */
export class Migration20261130BibReadUnsure extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "photo_bibs" add column if not exists "unsure" boolean not null default false');
    this.addSql(
      `create index if not exists "photo_bibs_unconfirmed_index" on "photo_bibs" ("event_id", "bib") where "status" = 'unconfirmed'`,
    );
  }
}
