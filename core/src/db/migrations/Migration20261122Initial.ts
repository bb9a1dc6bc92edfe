import { Migration } from '@mikro-orm/migrations';

/** The whole domain model: organisations, keys, events, photos and their BIBs and faces, searches, videos and clips. */
export class Migration20261122Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "accounts" ("id" serial primary key, "email" text not null, "subject" text null, "active" boolean not null default true, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`alter table "accounts" add constraint "accounts_email_unique" unique ("email")`);
    this.addSql(`alter table "accounts" add constraint "accounts_subject_unique" unique ("subject")`);
    this.addSql(
      `create table "organisations" ("id" serial primary key, "name" text not null, "slug" text not null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`alter table "organisations" add constraint "organisations_slug_unique" unique ("slug")`);
    this.addSql(
      `create table "memberships" ("id" serial primary key, "organisation_id" int not null, "account_id" int not null, "role" text check ("role" in ('admin', 'user')) not null default 'user', "status" text check ("status" in ('active', 'pending')) not null default 'active', "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "memberships_account_id_index" on "memberships" ("account_id")`);
    this.addSql(
      `alter table "memberships" add constraint "memberships_organisation_id_account_id_unique" unique ("organisation_id", "account_id")`,
    );
    this.addSql(
      `create table "events" ("id" serial primary key, "organisation_id" int not null, "name" text not null, "slug" text not null, "event_date" timestamptz null, "status" text check ("status" in ('draft', 'active', 'archived')) not null default 'draft', "enabled" boolean not null default true, "bib_search" boolean not null default false, "selfie_search" boolean not null default false, "name_search" boolean not null default false, "timeline_search" boolean not null default false, "video_search" boolean not null default false, "video_selfie_clipping" boolean not null default false, "confidence_threshold" real null, "time_zone" text not null default 'UTC', "cover_image_key" text null, "watermark_text" text null, "video_sample_fps" real not null default 2, "clip_max_gap_seconds" real not null default 3, "clip_min_segment_seconds" real not null default 1, "clip_padding_start_seconds" real not null default 2, "clip_padding_end_seconds" real not null default 2, "clip_max_duration_seconds" real not null default 30, "clip_retention_hours" int null, "went_live_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(
      `create index "events_organisation_id_event_date_id_index" on "events" ("organisation_id", "event_date", "id")`,
    );
    this.addSql(
      `alter table "events" add constraint "events_organisation_id_slug_unique" unique ("organisation_id", "slug")`,
    );
    this.addSql(
      `create table "clip_requests" ("request_id" uuid not null, "event_id" int not null, "status" text check ("status" in ('processing', 'completed', 'no_matches', 'no_segments', 'clip_failed', 'failed')) not null default 'processing', "error" text null, "clip_errors" jsonb not null default '[]', "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "finished_at" timestamptz null, constraint "clip_requests_pkey" primary key ("request_id"))`,
    );
    this.addSql(
      `create table "api_keys" ("id" serial primary key, "organisation_id" int not null, "name" text not null, "prefix" text not null, "key_hash" text not null, "active" boolean not null default true, "allowed_hosts" text[] not null default '{}', "created_at" timestamptz not null default now(), "last_used_at" timestamptz null)`,
    );
    this.addSql(`create index "api_keys_organisation_id_index" on "api_keys" ("organisation_id")`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash")`);
    this.addSql(
      `create table "face_searches" ("request_id" uuid not null, "organisation_id" int not null, "event_id" int not null, "api_key_id" int null, "embedding" bytea null, "confidence_threshold" real null, "matches" jsonb not null default '[]', "billable" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "face_searches_pkey" primary key ("request_id"))`,
    );
    this.addSql(
      `create index "face_searches_organisation_id_created_at_index" on "face_searches" ("organisation_id", "created_at")`,
    );
    this.addSql(
      `create table "photos" ("id" uuid not null, "event_id" int not null, "status" text check ("status" in ('imported', 'queued', 'processing', 'processed', 'failed')) not null default 'imported', "content_hash" text not null, "original_key" text not null, "original_file_name" text not null, "mime_type" text not null, "file_size" bigint null, "width" int null, "height" int null, "large_key" text null, "large_width" int null, "large_height" int null, "thumbnail_key" text null, "captured_at" timestamptz null, "photographer_name" text null, "source" text not null default 'upload', "external_url" text null, "step_errors" jsonb null, "processed_at" timestamptz null, "published_at" timestamptz null, "created_at" timestamptz not null default now(), constraint "photos_pkey" primary key ("id"))`,
    );
    this.addSql(`create index "photos_event_id_status_index" on "photos" ("event_id", "status")`);
    this.addSql(
      `create index "photos_gallery_idx" on "photos" ("event_id", "captured_at" asc nulls last, "id") where "published_at" is not null`,
    );
    this.addSql(
      `alter table "photos" add constraint "photos_event_id_content_hash_unique" unique ("event_id", "content_hash")`,
    );
    this.addSql(
      `create table "faces" ("id" bigserial primary key, "photo_id" uuid not null, "event_id" int not null, "embedding" bytea not null, "score" real not null, "box_x" real not null, "box_y" real not null, "box_width" real not null, "box_height" real not null)`,
    );
    this.addSql(`create index "faces_event_id_index" on "faces" ("event_id")`);
    this.addSql(
      `create table "photo_bibs" ("id" bigserial primary key, "photo_id" uuid not null, "event_id" int not null, "bib" text not null, "confidence" real not null default 1)`,
    );
    this.addSql(`create index "photo_bibs_event_id_bib_index" on "photo_bibs" ("event_id", "bib")`);
    this.addSql(`alter table "photo_bibs" add constraint "photo_bibs_photo_id_bib_unique" unique ("photo_id", "bib")`);
    this.addSql(
      `create table "videos" ("id" uuid not null, "event_id" int not null, "source_key" text not null, "storage_key" text not null, "original_file_name" text not null, "status" text check ("status" in ('uploaded', 'indexing', 'indexed', 'failed')) not null default 'uploaded', "error" text null, "duration_seconds" real null, "width" int null, "height" int null, "index_progress" real not null default 0, "created_at" timestamptz not null default now(), "indexed_at" timestamptz null, constraint "videos_pkey" primary key ("id"))`,
    );
    this.addSql(
      `alter table "videos" add constraint "videos_event_id_source_key_unique" unique ("event_id", "source_key")`,
    );
    this.addSql(
      `create table "clips" ("id" uuid not null, "clip_request_request_id" uuid not null, "video_id" uuid not null, "start_seconds" real not null, "end_seconds" real not null, "storage_key" text not null, "download_status" text check ("download_status" in ('ready', 'expired', 'deleted')) not null default 'ready', "expires_at" timestamptz null, "created_at" timestamptz not null default now(), constraint "clips_pkey" primary key ("id"))`,
    );
    this.addSql(`create index "clips_clip_request_request_id_index" on "clips" ("clip_request_request_id")`);
    this.addSql(
      `create table "video_faces" ("id" bigserial primary key, "video_id" uuid not null, "event_id" int not null, "time_seconds" real not null, "embedding" bytea not null, "score" real not null)`,
    );
    this.addSql(`create index "video_faces_event_id_index" on "video_faces" ("event_id")`);
    this.addSql(
      `alter table "memberships" add constraint "memberships_organisation_id_foreign" foreign key ("organisation_id") references "organisations" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "memberships" add constraint "memberships_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "events" add constraint "events_organisation_id_foreign" foreign key ("organisation_id") references "organisations" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "clip_requests" add constraint "clip_requests_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_organisation_id_foreign" foreign key ("organisation_id") references "organisations" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "face_searches" add constraint "face_searches_organisation_id_foreign" foreign key ("organisation_id") references "organisations" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "face_searches" add constraint "face_searches_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "face_searches" add constraint "face_searches_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id") on update cascade on delete set null`,
    );
    this.addSql(
      `alter table "photos" add constraint "photos_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "faces" add constraint "faces_photo_id_foreign" foreign key ("photo_id") references "photos" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "faces" add constraint "faces_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "photo_bibs" add constraint "photo_bibs_photo_id_foreign" foreign key ("photo_id") references "photos" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "photo_bibs" add constraint "photo_bibs_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "videos" add constraint "videos_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "clips" add constraint "clips_clip_request_request_id_foreign" foreign key ("clip_request_request_id") references "clip_requests" ("request_id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "clips" add constraint "clips_video_id_foreign" foreign key ("video_id") references "videos" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "video_faces" add constraint "video_faces_video_id_foreign" foreign key ("video_id") references "videos" ("id") on update cascade on delete cascade`,
    );
    this.addSql(
      `alter table "video_faces" add constraint "video_faces_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade`,
    );
    this.addSql(`create index "faces_photo_id_index" on "faces" ("photo_id")`);
    this.addSql(`create index "video_faces_video_id_index" on "video_faces" ("video_id", "time_seconds")`);
    this.addSql(`create index "clips_video_id_index" on "clips" ("video_id")`);
    this.addSql(
      `create index "photos_event_captured_idx" on "photos" ("event_id", "captured_at") where "published_at" is not null and "captured_at" is not null`,
    );
  }
}
