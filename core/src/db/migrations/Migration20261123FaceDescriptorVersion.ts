import { Migration } from '@mikro-orm/migrations';

/**
 * Face tracks in video (video_faces.track: sightings of one face followed across frames). And
 * which way each stored face descriptor was computed (FACE_DESCRIPTOR_VERSION): the rows already
 * there are version 1 (one pass), and the face index matches them with their own calibration
 * (maxDistanceFor), so no wrong person appears before they are re-embedded. Re-processing a photo
 * or re-indexing a video writes the current version.
 */
export class Migration20261123FaceDescriptorVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "faces" add column "descriptor_version" smallint not null default 1');
    this.addSql('alter table "video_faces" add column "descriptor_version" smallint not null default 1');
    // The face track of a video sighting (numbered per video; null: indexed before tracking).
    this.addSql('alter table "video_faces" add column "track" int null');
  }
}
