import { FaceMatch } from '../db/entities';
import { PhotosRepository } from '../repositories/photos.repository';
import { StoredFaceSearch } from '../repositories/face-searches.repository';

/** The matches of a stored search whose photos are still published, in stored order. */
export async function visibleMatches(
  photos: Pick<PhotosRepository, 'publishedAmong'>,
  search: StoredFaceSearch,
): Promise<FaceMatch[]> {
  const visible = await photos.publishedAmong(
    search.matches.map((m) => m.photoId),
    search.eventId,
  );
  return search.matches.filter((m) => visible.has(m.photoId));
}
