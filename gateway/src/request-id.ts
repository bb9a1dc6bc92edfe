import { newId } from '@em/core';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's `x-request-id` when it is a short plain token (it goes into logs), else a new id. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && REQUEST_ID.test(header) ? header : newId();
}
