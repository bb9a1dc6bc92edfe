import { Migration } from '@mikro-orm/migrations';

/**
 * Face search: the index loads an event's faces incrementally by id; a search record counts its
 * cached retries (not billable) next to the billable first run.
 */
export class Migration20261122FaceSearch extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index "faces_event_id_id_index" on "faces" ("event_id", "id")');
    this.addSql('drop index if exists "faces_event_id_index"');
    this.addSql('alter table "face_searches" add column "cache_hits" int not null default 0');
    this.addSql('alter table "face_searches" add column "faces_found" int not null default 0');
    this.addSql('create index "face_searches_event_id_created_at_index" on "face_searches" ("event_id", "created_at")');
  }
}
