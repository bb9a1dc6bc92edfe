// The page's only server: the public REST API of docs/SPEC.md, called with the event's browser key,
// plus the page's own name search beside it (`/events/api/...`, same key, envelope and rules).

export interface Pagination {
  total: number;
  currentPage: number;
  totalPages: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  page_size: number;
}
export interface ImageItem {
  img_url: string;
  thumbnail_url: string;
  image_id: string;
  width: number;
  height: number;
}
export interface ImagePage {
  images: ImageItem[];
  pagination: Pagination;
}
export interface FaceSearch extends ImagePage {
  request_id: string;
  confidence_percentage: number | null;
}
export interface EventDetails {
  event_id: number;
  event_name: string;
  event_date: string | null;
  status: string;
  event_enabled: boolean;
  bib_search: boolean;
  selfie_search: boolean;
  name_search?: boolean;
  video_search: boolean;
  video_selfie_search: boolean;
  timeline_search: boolean;
  cover_image?: string | null;
  time_zone?: string;
}
export interface ImageDetails extends ImageItem {
  meta_info: { photo_timestamp: number | null; photographer_name: string | null; original_file_name: string };
}
export interface TimelineDay {
  date: string;
  total: number;
  hours: { hour: number; count: number }[];
}
export interface Downloads {
  presigned_urls: { url: string; filename: string }[];
  failed_urls: { image_id: string }[];
  total_images: number;
  pagination: Pagination;
}
export interface Clip {
  uuid: string;
  video_url: string;
  download_url: string;
  download_status: string;
  start_time: string | null;
  end_time: string | null;
}
export interface NameMatch {
  bib: string;
  name: string;
  photo_count: number;
}
export interface Clipping {
  request_id: string;
  status: string;
  videos: Clip[];
  error: string | null;
}

/** What went wrong, as a sentence for the participant (never the raw JSON). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Topic = 'event' | 'bib' | 'name' | 'selfie' | 'result' | 'timeline' | 'download' | 'clips' | 'photos';

const FORBIDDEN: Partial<Record<Topic, string>> = {
  bib: 'Search by BIB number is not available for this event.',
  name: 'Search by name is not available for this event.',
  selfie: 'Search by selfie is not available for this event.',
  result: 'Search by selfie is not available for this event.',
  timeline: 'Browsing by time is not available for this event.',
  clips: 'Video moments are not available for this event.',
};
const NOT_FOUND: Partial<Record<Topic, string>> = {
  event: 'We could not find this event. Please check the link the organiser sent you.',
  result: 'This search result is no longer available. Please take your selfie again.',
  download: 'There are no photos to download for this search.',
  clips: 'No video moments were requested for this search yet.',
};

export function humanMessage(status: number, topic: Topic): string {
  if (status === 0) return 'The server could not be reached. Please check your connection and try again.';
  if (status === 401) return 'This page link is missing its access key. Please open the link the organiser sent you.';
  if (status === 403)
    return FORBIDDEN[topic] ?? 'This page is not allowed to show this event. Please ask the organiser for a new link.';
  if (status === 404) return NOT_FOUND[topic] ?? 'We could not find what you asked for.';
  if (status === 413) return 'That photo is too large. Please choose one under 5 MB.';
  if (status === 415 || (status === 400 && topic === 'selfie'))
    return 'We could not read that photo. Please choose a JPEG or PNG picture of your face.';
  if (status === 400 && topic === 'name') return 'Please type at least 2 letters of your name.';
  if (status === 429) return 'Too many searches right now. Please wait a minute and try again.';
  if (status >= 500) return 'Something went wrong on our side. Please try again in a moment.';
  return 'That did not work. Please check what you entered and try again.';
}

export class Api {
  private readonly warm = new Map<string, Promise<unknown>>();
  private warming = false;

  /** `base`: the event's REST API; `pageBase`: the event under the page's own routes (name search). */
  constructor(
    readonly base: string,
    private readonly key: string,
    private readonly pageBase = base,
  ) {}

  /** Starts the GETs of `request` now; the identical call that follows takes their answer (the first page loads beside the details). */
  prefetch(request: (api: Api) => Promise<unknown>): void {
    this.warming = true;
    try {
      request(this).catch(() => undefined);
    } finally {
      this.warming = false;
    }
  }

  private call<T>(topic: Topic, path: string, init: RequestInit = {}): Promise<T> {
    const isGet = !init.method;
    const early = isGet ? this.warm.get(path) : undefined;
    if (early) {
      this.warm.delete(path);
      return early as Promise<T>;
    }
    const answer = this.send<T>(topic, path, init);
    if (this.warming && isGet) this.warm.set(path, answer);
    return answer;
  }

  private async send<T>(topic: Topic, path: string, init: RequestInit): Promise<T> {
    let res: Response;
    try {
      // GETs revalidate the browser's copy (If-None-Match): an unchanged gallery comes back as a bodiless 304.
      const cache: RequestCache = init.method ? 'no-store' : 'no-cache';
      const url = path.startsWith('/names') ? `${this.pageBase}${path}` : `${this.base}${path}`;
      res = await fetch(url, {
        cache,
        ...init,
        headers: { 'X-API-Key': this.key, ...(init.headers ?? {}) },
        credentials: 'omit',
      });
    } catch {
      throw new ApiError(0, humanMessage(0, topic));
    }
    let body: { data?: T } | null = null;
    try {
      body = (await res.json()) as { data?: T };
    } catch {
      /* a body that is not the envelope: the status speaks */
    }
    if (!res.ok || !body) throw new ApiError(res.status, humanMessage(res.ok ? 500 : res.status, topic));
    return body.data as T;
  }

  details = () => this.call<EventDetails>('event', '/details');
  photos = (page: number) => this.call<ImagePage>('photos', `/images?page=${page}&page_size=24`);
  photo = (id: string) => this.call<ImageDetails>('photos', `/images/${encodeURIComponent(id)}`);
  bib = (bib: string, page: number) =>
    this.call<ImagePage>('bib', `/bibs/${encodeURIComponent(bib)}?page=${page}&page_size=24`);
  faceResult = (requestId: string, page: number) =>
    this.call<FaceSearch>('result', `/faces/${encodeURIComponent(requestId)}?page=${page}&page_size=24`);
  names = (query: string) => this.call<{ participants: NameMatch[] }>('name', `/names?q=${encodeURIComponent(query)}`);
  timelineDays = () => this.call<{ days: TimelineDay[] }>('timeline', '/timeline/days');
  timeline = (from: number, to: number, page: number) =>
    this.call<ImagePage>('timeline', `/timeline/images?from=${from}&to=${to}&page=${page}&page_size=24`);
  clipping = (requestId: string) => this.call<Clipping>('clips', `/video-clipping/${encodeURIComponent(requestId)}`);

  searchFaces(file: Blob): Promise<FaceSearch> {
    const form = new FormData();
    form.append('file', file, file instanceof File ? file.name : 'selfie.jpg');
    return this.call<FaceSearch>('selfie', '/faces?page=1&page_size=24', { method: 'POST', body: form });
  }

  startClipping(requestId: string): Promise<{ status: string; request_id: string }> {
    const form = new FormData();
    form.append('request_id', requestId);
    return this.call('clips', '/video-clipping/search-by-selfie', { method: 'POST', body: form });
  }

  originals(
    method: 'bib' | 'selfie' | 'image_id' | 'image_ids',
    identifier: string | string[],
    page: number,
  ): Promise<Downloads> {
    return this.call<Downloads>('download', `/original-photos?page=${page}&page_size=60`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method, identifier }),
    });
  }
}
