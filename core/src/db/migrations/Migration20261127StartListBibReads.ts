import { Migration } from '@mikro-orm/migrations';

/**
 * Every bib read is kept with how it was judged against the event's start list
 * (core/src/bibs/bib-read-rule.ts): `status` accepted / rejected / completed, `source` read or
 * completed, what OCR read (`read_text`), whether the reader saw only part of the bib, its box
 * (0-1 of the photo) when known. Only accepted and completed rows are searchable. A photo may now
 * hold a number twice (a whole read and a completed fragment), so (photo_id, bib) is no longer unique.
 */
export class Migration20261127StartListBibReads extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "photo_bibs" drop constraint if exists "photo_bibs_photo_id_bib_unique"');
    this.addSql('create index if not exists "photo_bibs_photo_id_index" on "photo_bibs" ("photo_id")');
    this.addSql(`alter table "photo_bibs"
      add column "read_text" text null,
      add column "status" text not null default 'accepted',
      add column "source" text not null default 'read',
      add column "partial" boolean not null default false,
      add column "box_x" real null, add column "box_y" real null, add column "box_width" real null, add column "box_height" real null`);
  }
}
