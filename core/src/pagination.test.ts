import { AppError } from './errors';
import { PAGE_LIMITS, pageInfo, resolvePage } from './pagination';

describe('resolvePage', () => {
  it('applies the defaults of the listing', () => {
    expect(resolvePage(undefined, undefined, PAGE_LIMITS.events)).toEqual({ page: 1, pageSize: 10, offset: 0 });
    expect(resolvePage(null, null, PAGE_LIMITS.photos)).toEqual({ page: 1, pageSize: 32, offset: 0 });
    expect(resolvePage(undefined, undefined, PAGE_LIMITS.downloads).pageSize).toBe(30);
  });

  it('clamps a page size above the maximum', () => {
    expect(resolvePage(2, 1000, PAGE_LIMITS.photos)).toEqual({ page: 2, pageSize: 100, offset: 100 });
    expect(resolvePage(1, 61, PAGE_LIMITS.downloads).pageSize).toBe(60);
  });

  it.each([
    [0, 10],
    [-1, 10],
    [1.5, 10],
    [1, 0],
    [1, -5],
    [1, 2.5],
  ])('refuses page %p / page_size %p with 400', (page, size) => {
    expect(() => resolvePage(page, size, PAGE_LIMITS.photos)).toThrow(AppError);
    try {
      resolvePage(page, size, PAGE_LIMITS.photos);
    } catch (err) {
      expect((err as AppError).status).toBe(400);
    }
  });
});

describe('pageInfo', () => {
  it('reports the empty result with currentPage 0', () => {
    expect(pageInfo(0, resolvePage(3, 20, PAGE_LIMITS.photos))).toEqual({
      total: 0,
      currentPage: 0,
      totalPages: 0,
      hasNextPage: false,
      hasPreviousPage: false,
      pageSize: 20,
    });
  });

  it('computes pages and neighbours', () => {
    expect(pageInfo(65, resolvePage(2, 32, PAGE_LIMITS.photos))).toEqual({
      total: 65,
      currentPage: 2,
      totalPages: 3,
      hasNextPage: true,
      hasPreviousPage: true,
      pageSize: 32,
    });
    expect(pageInfo(64, resolvePage(2, 32, PAGE_LIMITS.photos)).hasNextPage).toBe(false);
  });

  it('keeps the requested page beyond the last one, with no next page', () => {
    const info = pageInfo(5, resolvePage(4, 2, PAGE_LIMITS.photos));
    expect(info).toMatchObject({ currentPage: 4, totalPages: 3, hasNextPage: false, hasPreviousPage: true });
  });
});
