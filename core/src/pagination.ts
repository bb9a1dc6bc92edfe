import { AppError } from './errors';

/** Page size rules of one listing: its default and its maximum (see the spec's Limits table). */
export interface PageLimits {
  defaultSize: number;
  maxSize: number;
}

export const PAGE_LIMITS = {
  events: { defaultSize: 10, maxSize: 100 },
  photos: { defaultSize: 32, maxSize: 100 },
  downloads: { defaultSize: 30, maxSize: 60 },
} satisfies Record<string, PageLimits>;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface PageInfo {
  total: number;
  currentPage: number;
  totalPages: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  pageSize: number;
}

/**
 * Resolves the requested page. A `page` or `pageSize` that is not a positive integer is refused
 * (400); a `pageSize` above the maximum is clamped to the maximum, and the page info reports the
 * size actually used.
 */
export function resolvePage(
  page: number | null | undefined,
  pageSize: number | null | undefined,
  limits: PageLimits,
): PageRequest {
  const p = page ?? 1;
  const requestedSize = pageSize ?? limits.defaultSize;
  if (!Number.isSafeInteger(p) || p < 1) throw new AppError('BAD_REQUEST', 'page must be a positive integer');
  if (!Number.isSafeInteger(requestedSize) || requestedSize < 1) {
    throw new AppError('BAD_REQUEST', 'page_size must be a positive integer');
  }
  const size = Math.min(requestedSize, limits.maxSize);
  return { page: p, pageSize: size, offset: (p - 1) * size };
}

/** Page info for `total` items; an empty result has currentPage 0 ("no page available"). */
export function pageInfo(total: number, request: PageRequest): PageInfo {
  if (total === 0) {
    return {
      total: 0,
      currentPage: 0,
      totalPages: 0,
      hasNextPage: false,
      hasPreviousPage: false,
      pageSize: request.pageSize,
    };
  }
  const totalPages = Math.ceil(total / request.pageSize);
  return {
    total,
    currentPage: request.page,
    totalPages,
    hasNextPage: request.page < totalPages,
    hasPreviousPage: request.page > 1,
    pageSize: request.pageSize,
  };
}

export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}
