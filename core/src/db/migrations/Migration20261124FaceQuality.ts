import { Migration } from '@mikro-orm/migrations';

/**
 * Each face's quality (faceQuality: pose, size, detector score, contrast, sharpness; 0-1) when it was
 * found. Null for faces stored before: they keep their descriptor version's calibration, no more.
 */
export class Migration20261124FaceQuality extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "faces" add column if not exists "quality" real null');
    this.addSql('alter table "video_faces" add column if not exists "quality" real null');
  }
}
