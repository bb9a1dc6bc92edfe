import {
  AppError,
  isUuid,
  requireRequestId,
  PAGE_LIMITS,
  PageInfo,
  pageInfo,
  PageRequest,
  Principal,
  resolvePage,
} from '@em/core';
import {
  EventsRepository,
  FaceSearchesRepository,
  guardOperation,
  Photo,
  PhotosRepository,
  visibleMatches,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';

export const DOWNLOAD_METHODS = ['bib', 'selfie', 'image_id', 'image_ids'] as const;
export type DownloadMethod = (typeof DOWNLOAD_METHODS)[number];

/** Most ids one `image_ids` request may list. */
export const MAX_IMAGE_IDS = 500;
/** HEAD requests to the store in flight at once while checking a page of originals. */
const STORAGE_CHECKS_IN_FLIGHT = 8;

export interface PresignedUrl {
  imageId: string;
  url: string;
  fileName: string;
}

export interface FailedUrl {
  imageId: string;
  error: string;
  path: string;
}

export interface OriginalDownloads {
  presignedUrls: PresignedUrl[];
  failedUrls: FailedUrl[];
  /** Images the request selects over all pages. */
  totalImages: number;
  /** Links and failures of this page. */
  successfulCount: number;
  failedCount: number;
  /** The identifier as sent, or null when it was a list. */
  identifier: string | null;
  pageInfo: PageInfo;
}

/** A photo to link, or why it cannot be. */
type Candidate = { imageId: string; photo: Photo } | { imageId: string; error: string; path: string };

/**
 * Presigned links to the original, unwatermarked photos, for a BIB, a stored selfie search, one
 * image or a list of images. Only published photos of the event are downloadable, and only when
 * their original is in storage. Links expire after DOWNLOAD_URL_TTL_SECONDS (an hour by default)
 * and download under the original file name.
 */
export class DownloadsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly faceSearches: FaceSearchesRepository,
    private readonly store: ObjectStore,
  ) {}

  async originals(
    principal: Principal,
    orgId: number,
    eventId: number,
    method: unknown,
    identifier: unknown,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<OriginalDownloads> {
    await guardOperation(this.events, principal, 'originalDownloads', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.downloads);
    if (typeof method !== 'string' || !(DOWNLOAD_METHODS as readonly string[]).includes(method)) {
      throw new AppError('BAD_REQUEST', `method must be one of ${DOWNLOAD_METHODS.join(', ')}`);
    }
    switch (method as DownloadMethod) {
      case 'bib':
        return this.byBib(eventId, requireString(identifier, 'a BIB number'), request);
      case 'selfie':
        return this.bySelfie(orgId, eventId, requireString(identifier, 'the request_id of a face search'), request);
      case 'image_id':
        return this.byImageId(eventId, requireString(identifier, 'an image id'), request);
      case 'image_ids':
        return this.byImageIds(eventId, requireStringList(identifier), request);
    }
  }

  private async byBib(eventId: number, bib: string, request: PageRequest): Promise<OriginalDownloads> {
    const { total, ids } = await this.photos.publishedWithBib(eventId, bib, request);
    if (total === 0) throw new AppError('NOT_FOUND', `No photos with BIB ${bib.trim()} in this event`);
    const photos = await this.photosByIds(eventId, ids);
    return this.answer(
      ids.map((id) => candidate(id, photos.get(id))),
      total,
      request,
      bib,
    );
  }

  private async bySelfie(
    orgId: number,
    eventId: number,
    requestId: string,
    request: PageRequest,
  ): Promise<OriginalDownloads> {
    const search = await this.faceSearches.find(
      eventId,
      requireRequestId(requestId, 'For method selfie, identifier must be the request_id (a UUID) of a face search'),
    );
    if (!search || search.orgId !== orgId)
      throw new AppError('NOT_FOUND', 'No face search with this request_id for this event');
    const matches = await visibleMatches(this.photos, search);
    if (matches.length === 0) throw new AppError('NOT_FOUND', 'The face search with this request_id matched no photos');
    const ids = matches.slice(request.offset, request.offset + request.pageSize).map((m) => m.photoId);
    const photos = await this.photosByIds(eventId, ids);
    return this.answer(
      ids.map((id) => candidate(id, photos.get(id))),
      matches.length,
      request,
      requestId,
    );
  }

  private async byImageId(eventId: number, imageId: string, request: PageRequest): Promise<OriginalDownloads> {
    const id = imageId.trim().toLowerCase();
    const photo = isUuid(id) ? (await this.photosByIds(eventId, [id])).get(id) : undefined;
    const result = await this.answer([candidate(id, photo)], 1, request, imageId);
    if (result.successfulCount === 0)
      throw new AppError(
        'BAD_REQUEST',
        `Image ${imageId} cannot be downloaded: ${result.failedUrls[0]?.error ?? 'not found'}`,
      );
    return result;
  }

  /** A page of the list; 400 only when no id of the whole list can be downloaded (a page of failures, or past the end, is a page). */
  private async byImageIds(eventId: number, imageIds: string[], request: PageRequest): Promise<OriginalDownloads> {
    const wanted = [...new Set(imageIds.map((id) => id.trim().toLowerCase()))];
    if (wanted.length > MAX_IMAGE_IDS)
      throw new AppError('BAD_REQUEST', `identifier lists at most ${MAX_IMAGE_IDS} image ids`);
    const photos = await this.photosByIds(eventId, wanted.filter(isUuid));
    const onPage = wanted.slice(request.offset, request.offset + request.pageSize);
    const result = await this.answer(
      onPage.map((id) => candidate(id, photos.get(id))),
      wanted.length,
      request,
      null,
    );
    if (result.successfulCount === 0) {
      const elsewhere = [...photos.values()].filter((p) => !onPage.includes(p.id));
      if (!(await this.anyOriginalStored(elsewhere)))
        throw new AppError('BAD_REQUEST', 'None of the requested images can be downloaded');
    }
    return result;
  }

  /** Whether one of these photos has its original in storage (stops at the first). */
  private async anyOriginalStored(photos: Photo[]): Promise<boolean> {
    for (let i = 0; i < photos.length; i += STORAGE_CHECKS_IN_FLIGHT) {
      const found = await Promise.all(
        photos.slice(i, i + STORAGE_CHECKS_IN_FLIGHT).map((p) => this.store.exists(p.originalKey)),
      );
      if (found.includes(true)) return true;
    }
    return false;
  }

  private async photosByIds(eventId: number, ids: string[]): Promise<Map<string, Photo>> {
    const photos = await this.photos.findPublishedInEvent(eventId, ids);
    return new Map(photos.map((p) => [p.id, p]));
  }

  /** Checks each candidate's original in storage and signs a link for those that are there. */
  private async answer(
    candidates: Candidate[],
    total: number,
    request: PageRequest,
    identifier: string | null,
  ): Promise<OriginalDownloads> {
    const outcomes = await mapLimited(
      candidates,
      STORAGE_CHECKS_IN_FLIGHT,
      async (c): Promise<PresignedUrl | FailedUrl> => {
        if (!('photo' in c)) return c;
        const { photo } = c;
        if (!(await this.store.exists(photo.originalKey)))
          return { imageId: c.imageId, error: 'The original is missing from storage', path: photo.originalKey };
        return {
          imageId: c.imageId,
          url: await this.store.presignedDownload(photo.originalKey, photo.originalFileName),
          fileName: photo.originalFileName,
        };
      },
    );
    const presignedUrls = outcomes.filter((o): o is PresignedUrl => 'url' in o);
    const failedUrls = outcomes.filter((o): o is FailedUrl => 'error' in o);
    return {
      presignedUrls,
      failedUrls,
      totalImages: total,
      successfulCount: presignedUrls.length,
      failedCount: failedUrls.length,
      identifier,
      pageInfo: pageInfo(total, request),
    };
  }
}

function candidate(imageId: string, photo: Photo | undefined): Candidate {
  if (photo) return { imageId, photo };
  if (!isUuid(imageId)) return { imageId, error: 'Not a valid image id (a UUID)', path: '' };
  return { imageId, error: 'No published image with this id in this event', path: '' };
}

function requireString(identifier: unknown, what: string): string {
  if (identifier === undefined || identifier === null)
    throw new AppError('BAD_REQUEST', `identifier is required: ${what}`);
  if (typeof identifier !== 'string')
    throw new AppError('BAD_REQUEST', `identifier must be a string for this method: ${what}`);
  if (identifier.trim() === '') throw new AppError('BAD_REQUEST', 'identifier must not be empty');
  return identifier;
}

function requireStringList(identifier: unknown): string[] {
  if (identifier === undefined || identifier === null)
    throw new AppError('BAD_REQUEST', 'identifier is required: a list of image ids');
  if (!Array.isArray(identifier) || identifier.some((v) => typeof v !== 'string')) {
    throw new AppError('BAD_REQUEST', 'identifier must be an array of image id strings for method image_ids');
  }
  if (identifier.length === 0) throw new AppError('BAD_REQUEST', 'identifier must not be empty');
  return identifier as string[];
}

/** `fn` over `items`, at most `limit` at a time, results in input order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}
