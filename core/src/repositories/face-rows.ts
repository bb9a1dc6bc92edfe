/** A stored face as the in-memory face indexes load it. */
export interface FaceRow {
  /** The face's id (a bigint as text). */
  id: string;
  /** What the face belongs to: a photo id, or `<video id>@<seconds>` for a video frame. */
  ref: string;
  embedding: Buffer;
  /** The descriptor model version the embedding was made with (older ones keep their calibration). */
  version: number;
  /** The face's quality when found (0-1); null when stored before it was measured. */
  quality: number | null;
  /** Faces of one group match together (a face track of a video); null for photo faces. */
  group: string | null;
}

/** Where a face index loads its faces from, in id order (the photos or the videos repository). */
export interface FaceRowSource {
  /** The event's faces with an id above `afterId`, in id order, at most `limit`, leaving out `skipIds` (faces already held). */
  facesAfter(eventId: number, afterId: string, limit: number, skipIds?: readonly string[]): Promise<FaceRow[]>;
}
