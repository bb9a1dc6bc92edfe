import { ServerResponse } from 'node:http';

/** The spec's envelope: every /api/v1/ext response, success or error. */
export interface Envelope {
  responseType: 'success' | 'error';
  message: string;
  data: unknown;
}

export function send(
  res: ServerResponse,
  status: number,
  envelope: Envelope,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(envelope);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export const success = (res: ServerResponse, message: string, data: unknown) =>
  send(res, 200, { responseType: 'success', message, data });

export const failure = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
  send(res, status, { responseType: 'error', message, data: null }, headers);
