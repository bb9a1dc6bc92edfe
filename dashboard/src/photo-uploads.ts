import { ApiError, gql, putToStorage, StorageError } from './api';

// Photos go from the browser straight to object storage at URLs the API signs; the API then checks
// and imports each one. An upload in parts is remembered in localStorage, so a reload can resume it.

interface PartUrl {
  partNumber: number;
  url: string;
  size: number;
}

/** What the page keeps of an unfinished upload, under the file's fingerprint. */
export interface SavedUpload {
  eventId: number;
  name: string;
  size: number;
  key: string;
  multipartUploadId: string | null;
  partSize: number | null;
  startedAt: string;
}

export interface UploadOutcome {
  status: 'imported' | 'duplicate';
  imageId: string;
}

const START = `mutation($orgId: Int!, $eventId: Int!, $fileName: String!, $size: Int!, $contentType: String!) {
  startPhotoUpload(orgId: $orgId, eventId: $eventId, fileName: $fileName, size: $size, contentType: $contentType) {
    key url multipartUploadId partSize parts { partNumber url size } } }`;
const PARTS = `mutation($orgId: Int!, $eventId: Int!, $key: String!, $multipartUploadId: String!, $size: Int!) {
  photoUploadParts(orgId: $orgId, eventId: $eventId, key: $key, multipartUploadId: $multipartUploadId, size: $size) {
    uploaded { partNumber size } missing { partNumber url size } } }`;
const COMPLETE = `mutation($orgId: Int!, $eventId: Int!, $key: String!, $fileName: String!, $multipartUploadId: String) {
  completePhotoUpload(orgId: $orgId, eventId: $eventId, key: $key, fileName: $fileName,
    multipartUploadId: $multipartUploadId) { status imageId } }`;
const ABORT = `mutation($orgId: Int!, $eventId: Int!, $key: String!, $multipartUploadId: String) {
  abortPhotoUpload(orgId: $orgId, eventId: $eventId, key: $key, multipartUploadId: $multipartUploadId) }`;

/** Tries of one PUT whose connection dropped, before the file is reported failed. */
const MAX_TRIES = 5;
const STORAGE_PREFIX = 'em-upload:';

const TYPES_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
  heif: 'image/heif',
};

/** The type declared for a file: the browser's, else by its extension (the server checks the bytes anyway). */
function contentTypeOf(file: File): string {
  return file.type || TYPES_BY_EXTENSION[file.name.split('.').pop()?.toLowerCase() ?? ''] || 'application/octet-stream';
}

const fingerprint = (eventId: number, file: File) =>
  `${STORAGE_PREFIX}${eventId}:${file.size}:${file.lastModified}:${file.name}`;

function save(storageKey: string, upload: SavedUpload): void {
  try {
    localStorage.setItem(storageKey, JSON.stringify(upload));
  } catch {
    // Storage full or disabled: the upload still runs, only a reload cannot resume it.
  }
}

/** The event's unfinished uploads kept by this browser, with the key they are kept under. */
export function unfinishedUploads(eventId: number): Array<{ storageKey: string; upload: SavedUpload }> {
  const out: Array<{ storageKey: string; upload: SavedUpload }> = [];
  for (let i = 0; i < localStorage.length; i++) {
    const storageKey = localStorage.key(i);
    if (!storageKey?.startsWith(`${STORAGE_PREFIX}${eventId}:`)) continue;
    try {
      out.push({ storageKey, upload: JSON.parse(localStorage.getItem(storageKey) ?? '') as SavedUpload });
    } catch {
      localStorage.removeItem(storageKey);
    }
  }
  return out.sort((a, b) => a.upload.startedAt.localeCompare(b.upload.startedAt));
}

/** Gives an unfinished upload up: storage drops its parts, the browser forgets it. */
export async function forgetUpload(orgId: number, storageKey: string, upload: SavedUpload): Promise<void> {
  await gql(ABORT, {
    orgId,
    eventId: upload.eventId,
    key: upload.key,
    multipartUploadId: upload.multipartUploadId,
  }).catch(() => undefined);
  localStorage.removeItem(storageKey);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One PUT, tried again (same URL) while the connection drops; other refusals go up at once. */
async function putWithRetry(
  url: string,
  body: Blob,
  contentType: string | null,
  onProgress: (loaded: number) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await putToStorage(url, body, contentType, onProgress);
      return;
    } catch (err) {
      onProgress(0);
      if (!(err instanceof StorageError) || err.status !== 0 || attempt >= MAX_TRIES) throw err;
      await pause(500 * 2 ** attempt);
    }
  }
}

/**
 * Uploads one photo to the event: straight to storage (in parts for a large file, resuming the parts
 * a former attempt stored), then the API checks and imports it. `onProgress` gets bytes stored so far.
 */
export async function uploadPhoto(
  orgId: number,
  eventId: number,
  file: File,
  onProgress: (bytes: number) => void,
): Promise<UploadOutcome> {
  const ids = { orgId, eventId };
  const storageKey = fingerprint(eventId, file);
  const contentType = contentTypeOf(file);
  let saved = JSON.parse(localStorage.getItem(storageKey) ?? 'null') as SavedUpload | null;
  let missing: PartUrl[] = [];
  let stored = 0;
  const complete = async (upload: SavedUpload): Promise<UploadOutcome> => {
    try {
      const { completePhotoUpload: done } = await gql<{ completePhotoUpload: UploadOutcome }>(COMPLETE, {
        ...ids,
        key: upload.key,
        fileName: file.name,
        multipartUploadId: upload.multipartUploadId,
      });
      localStorage.removeItem(storageKey);
      return done;
    } catch (err) {
      // A refusal is final; a dropped connection or a busy API keeps the upload to complete later.
      if (err instanceof ApiError && err.isRefusal) localStorage.removeItem(storageKey);
      throw err;
    }
  };

  if (saved?.multipartUploadId) {
    try {
      const { photoUploadParts: parts } = await gql<{
        photoUploadParts: { uploaded: Array<{ size: number }>; missing: PartUrl[] };
      }>(PARTS, { ...ids, key: saved.key, multipartUploadId: saved.multipartUploadId, size: file.size });
      missing = parts.missing;
      stored = parts.uploaded.reduce((n, p) => n + p.size, 0);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'NOT_FOUND') throw err;
      saved = null;
    }
  } else if (saved) {
    // A single PUT may have reached storage before the page went away: completing it tells.
    try {
      return await complete(saved);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'NOT_FOUND') throw err;
      saved = null;
    }
  }

  let singleUrl: string | null = null;
  if (!saved) {
    const { startPhotoUpload: started } = await gql<{
      startPhotoUpload: {
        key: string;
        url: string | null;
        multipartUploadId: string | null;
        partSize: number | null;
        parts: PartUrl[];
      };
    }>(START, { ...ids, fileName: file.name, size: file.size, contentType });
    saved = {
      eventId,
      name: file.name,
      size: file.size,
      key: started.key,
      multipartUploadId: started.multipartUploadId,
      partSize: started.partSize,
      startedAt: new Date().toISOString(),
    };
    // Kept until completed: after a reload the page lists it, and the same file chosen again resumes it.
    save(storageKey, saved);
    singleUrl = started.url;
    missing = started.parts;
  }
  onProgress(stored);

  if (singleUrl) await putWithRetry(singleUrl, file, contentType, onProgress);
  else {
    for (const part of missing) {
      const from = (part.partNumber - 1) * (saved.partSize ?? 0);
      await putWithRetry(part.url, file.slice(from, from + part.size), null, (loaded) => onProgress(stored + loaded));
      stored += part.size;
    }
  }
  return complete(saved);
}

/** Every file of a drop, folders read through (hidden files such as .DS_Store left out). */
export async function droppedFiles(data: DataTransfer): Promise<File[]> {
  const entries = [...data.items].map((item) => item.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  if (!entries.length) return [...data.files];
  const files: File[] = [];
  const walk = async (entry: FileSystemEntry): Promise<void> => {
    if (entry.name.startsWith('.')) return;
    if (entry.isFile) {
      files.push(await new Promise<File>((ok, fail) => (entry as FileSystemFileEntry).file(ok, fail)));
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in batches (100 in Chromium) until an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const child of batch) await walk(child);
    }
  };
  for (const entry of entries) await walk(entry);
  return files;
}
