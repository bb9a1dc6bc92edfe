import { Migration } from '@mikro-orm/migrations';

/**
 * A request_id names a face search or clipping request within one event: the keys of face_searches
 * and clip_requests become (event_id, request_id), and clips reference their request by both.
 * Existing rows keep their ids (they were unique across events, so they are unique per event).
 */
export class Migration20261123RequestIdPerEvent extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "face_searches" drop constraint "face_searches_pkey"');
    this.addSql(
      'alter table "face_searches" add constraint "face_searches_pkey" primary key ("event_id", "request_id")',
    );

    this.addSql('alter table "clips" drop constraint "clips_clip_request_request_id_foreign"');
    this.addSql('alter table "clips" add column "clip_request_event_id" int null');
    this.addSql(
      'update "clips" set "clip_request_event_id" = r."event_id" from "clip_requests" r where r."request_id" = "clips"."clip_request_request_id"',
    );
    this.addSql('alter table "clips" alter column "clip_request_event_id" set not null');
    this.addSql('alter table "clip_requests" drop constraint "clip_requests_pkey"');
    this.addSql(
      'alter table "clip_requests" add constraint "clip_requests_pkey" primary key ("event_id", "request_id")',
    );
    this.addSql('drop index if exists "clips_clip_request_request_id_index"');
    this.addSql(
      'create index "clips_clip_request_event_id_clip_request_request_id_index" on "clips" ("clip_request_event_id", "clip_request_request_id")',
    );
    this.addSql(
      'alter table "clips" add constraint "clips_clip_request_event_id_clip_request_request_id_foreign" foreign key ("clip_request_event_id", "clip_request_request_id") references "clip_requests" ("event_id", "request_id") on update cascade on delete cascade',
    );
  }
}
