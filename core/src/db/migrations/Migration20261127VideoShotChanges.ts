import { Migration } from '@mikro-orm/migrations';

/**
 * When each new shot of a video starts (seconds), found while indexing: a clip window never runs
 * into the next shot. Null for videos indexed before: their windows are padded as they were.
 */
export class Migration20261127VideoShotChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "videos" add column if not exists "shot_changes" real[] null');
  }
}
