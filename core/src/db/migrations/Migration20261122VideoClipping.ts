import { Migration } from '@mikro-orm/migrations';

/**
 * Video clipping: a clipping request belongs to an organisation, keeps the selfie's descriptor and
 * the matched frames it was started with, and counts its runs (generation) so a re-run's job is new.
 * Video faces load incrementally by id, like photo faces.
 */
export class Migration20261122VideoClipping extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "clip_requests" add column "organisation_id" int null references "organisations" ("id") on update cascade on delete cascade',
    );
    this.addSql('alter table "clip_requests" add column "embedding" bytea null');
    this.addSql(`alter table "clip_requests" add column "matches" jsonb not null default '[]'`);
    this.addSql('alter table "clip_requests" add column "generation" int not null default 0');
    this.addSql('alter table "videos" add column "sample_fps" real null');
    this.addSql('create index "video_faces_event_id_id_index" on "video_faces" ("event_id", "id")');
    this.addSql('drop index if exists "video_faces_event_id_index"');
  }
}
