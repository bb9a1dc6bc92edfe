import { Migration } from '@mikro-orm/migrations';

/**
 * Which end digit of a bib read OCR was least sure of (`first`, `last`, or null: none alone), kept so a
 * start list imported later judges the read as the photo job would (core/src/bibs/bib-read-rule.ts).
 */
export class Migration20261129BibReadWeakEnd extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "photo_bibs" add column if not exists "weak_end" text null');
  }
}
