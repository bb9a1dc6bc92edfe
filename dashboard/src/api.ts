// The dashboard's only server: its backend-for-frontend. The session is an httpOnly cookie the page
// cannot read; the CSRF token it sends back comes from /dashboard/api/session.

export interface Organisation {
  id: number;
  name: string;
  role: string | null;
}

export interface Session {
  email: string | null;
  csrfToken: string;
  /** The account's organisations, answered with the session (null when the server could not ask them). */
  organisations: Organisation[] | null;
}

let session: Session | null = null;
/** Set once sign-out starts: a request still in flight then answers 401, and must not sign in again. */
let signingOut = false;

/** Codes that say "not now" rather than "not this": the same request may pass on a later try. */
const NOT_NOW_CODES = new Set(['RATE_LIMITED', 'INTERNAL', 'INTERNAL_SERVER_ERROR', 'NOT_RECORDED', 'UNAVAILABLE']);

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly field?: string,
    /** The error's other extensions (a start list's `lines`, for instance). */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The API refused this request for what it is (not a photo, too large, not allowed): trying again will not help. */
  get isRefusal(): boolean {
    return !!this.code && !NOT_NOW_CODES.has(this.code);
  }
}

/** Starts the sign-in at the provider, coming back to the current page. */
export function signIn(): void {
  if (signingOut) return;
  window.location.assign(`/dashboard/login?return=${encodeURIComponent(window.location.pathname)}`);
}

export async function loadSession(): Promise<Session | null> {
  const res = await fetch('/dashboard/api/session', { credentials: 'same-origin' });
  if (res.status === 401) return null;
  if (!res.ok) throw new ApiError(`The dashboard answered ${res.status}`);
  session = (await res.json()) as Session;
  return session;
}

export async function signOut(): Promise<void> {
  signingOut = true;
  const res = await fetch('/dashboard/logout', {
    method: 'POST',
    headers: { 'x-csrf-token': session?.csrfToken ?? '' },
    credentials: 'same-origin',
  });
  const body = (await res.json().catch(() => ({}))) as { endSessionUrl?: string | null };
  session = null;
  window.location.assign(body.endSessionUrl ?? '/dashboard/signed-out');
}

interface GraphQLAnswer<T> {
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string; field?: string; [key: string]: unknown } }>;
}

function unwrap<T>(status: number, body: GraphQLAnswer<T>): T {
  if (status === 401 || body.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED') {
    signIn();
    throw new ApiError('Your session has ended: signing in again');
  }
  const error = body.errors?.[0];
  if (status === 413 && !error) throw new ApiError('The file is larger than the server accepts', 'PAYLOAD_TOO_LARGE');
  if (error || !body.data)
    throw new ApiError(
      error?.message ?? `The request failed (${status})`,
      error?.extensions?.code,
      error?.extensions?.field,
      error?.extensions ?? {},
    );
  return body.data;
}

async function post<T>(query: string, variables: Record<string, unknown>): Promise<[number, GraphQLAnswer<T>]> {
  const res = await fetch('/dashboard/api/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': session?.csrfToken ?? '' },
    body: JSON.stringify({ query, variables }),
  });
  return [res.status, (await res.json().catch(() => ({}))) as GraphQLAnswer<T>];
}

/** One GraphQL operation; T is the shape of its `data` as the query selects it. */
export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  return unwrap<T>(...(await post<T>(query, variables)));
}

/**
 * One GraphQL operation whose nullable fields may be refused on their own (a count the caller may not
 * read): the data with the messages of those refusals. Fails as gql does when there is no data.
 */
export async function gqlPartial<T>(
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ data: T; refusals: string[] }> {
  const [status, body] = await post<T>(query, variables);
  const data = unwrap<T>(status, { ...body, errors: body.data ? undefined : body.errors });
  return { data, refusals: (body.errors ?? []).map((e) => e.message) };
}

/**
 * A GraphQL multipart upload of one file (the spec of graphql-multipart-request), with upload
 * progress: XMLHttpRequest reports it, fetch does not. `asList`: the variable is `[Upload!]`, not `Upload`.
 */
export function gqlUpload<T>(
  query: string,
  variables: Record<string, unknown>,
  fileVariable: string,
  file: File,
  onProgress: (fraction: number) => void,
  asList = true,
): Promise<T> {
  const form = new FormData();
  const placeholder = asList ? [null] : null;
  form.append('operations', JSON.stringify({ query, variables: { ...variables, [fileVariable]: placeholder } }));
  form.append('map', JSON.stringify({ 0: [`variables.${fileVariable}${asList ? '.0' : ''}`] }));
  form.append('0', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/dashboard/api/graphql');
    xhr.setRequestHeader('x-csrf-token', session?.csrfToken ?? '');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError('The connection dropped during the upload'));
    xhr.onload = () => {
      try {
        resolve(unwrap<T>(xhr.status, JSON.parse(xhr.responseText || '{}') as GraphQLAnswer<T>));
      } catch (err) {
        reject(err instanceof Error ? err : new ApiError(String(err)));
      }
    };
    xhr.send(form);
  });
}

/** Saves text as a file the browser downloads (built in the page: no server round trip, no inline script). */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has started once click() returns; the URL is released after it has been read.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A PUT that did not reach its end: the connection dropped, or storage answered an error. */
export class StorageError extends Error {
  constructor(
    message: string,
    /** 0 when the connection dropped (retry the same URL); else storage's HTTP status (403: the URL expired). */
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * A PUT of bytes straight to object storage at a presigned URL (never through a Node process of
 * ours), with progress; the page sends no cookie or CSRF token there. Resolves with the ETag.
 */
export function putToStorage(
  url: string,
  body: Blob,
  contentType: string | null,
  onProgress: (loaded: number) => void,
): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    if (contentType) xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    const dropped = () => reject(new StorageError('The connection dropped during the upload', 0));
    xhr.onerror = dropped;
    xhr.onabort = dropped;
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve(xhr.getResponseHeader('etag'))
        : reject(new StorageError(`Storage refused the upload (${xhr.status})`, xhr.status));
    xhr.send(body);
  });
}

/**
 * A GraphQL subscription over graphql-ws (the graphql-transport-ws protocol) through the dashboard's
 * server, which adds the session's token. `onData` gets each result's data; `onEnd` once the
 * subscription ends (refused, or the connection closed). Returns a function that stops it.
 */
export function subscribe<T>(
  query: string,
  variables: Record<string, unknown>,
  onData: (data: T) => void,
  onEnd: () => void,
): () => void {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${window.location.host}/dashboard/api/graphql`, 'graphql-transport-ws');
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  ws.onopen = () => ws.send(JSON.stringify({ type: 'connection_init' }));
  ws.onmessage = (message: MessageEvent<string>) => {
    const msg = JSON.parse(message.data) as { type: string; payload?: { data?: T } };
    if (msg.type === 'connection_ack')
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
    else if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
    else if (msg.type === 'next' && msg.payload?.data) onData(msg.payload.data);
    else if (msg.type === 'error' || msg.type === 'complete') end();
  };
  ws.onclose = end;
  return () => {
    ended = true;
    ws.close();
  };
}
