import { Migration } from '@mikro-orm/migrations';

/**
 * An unsure read is settled again whenever the reads near it change (a photo deleted or read again, the
 * organiser's word), so the partial index holds every unsure read, confirmed or not, instead of the unconfirmed
 * ones only (core/src/repositories/photos.repository.ts, `settleUnsure`).
 */
export class Migration20261130BibReadUnsureSettled extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists "photo_bibs_unsure_index" on "photo_bibs" ("event_id", "bib") where "unsure"`,
    );
    this.addSql('drop index if exists "photo_bibs_unconfirmed_index"');
  }
}
