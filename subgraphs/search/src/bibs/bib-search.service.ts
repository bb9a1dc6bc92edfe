import { guardEvent, normaliseBib, Orm, Page, PAGE_LIMITS, pageInfo, Principal, resolvePage } from '@em/core';

export class BibSearchService {
  constructor(private readonly orm: Orm) {}

  /** Published photos on which `bib` was read (case-insensitive), in gallery order. */
  async search(principal: Principal, orgId: number, eventId: number, bib: string, page?: number | null, pageSize?: number | null): Promise<Page<{ id: string }>> {
    await guardEvent(this.orm.em, principal, orgId, eventId, ['bibSearch']);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const wanted = normaliseBib(bib);
    if (!wanted) return { items: [], pageInfo: pageInfo(0, request) };
    const conn = this.orm.em.getConnection();
    const from = `from photo_bibs b join photos p on p.id = b.photo_id
                  where b.event_id = ? and b.bib = ? and p.published_at is not null`;
    const [{ total }] = await conn.execute(`select count(distinct p.id)::int as total ${from}`, [eventId, wanted]);
    if (total === 0) return { items: [], pageInfo: pageInfo(0, request) };
    const rows: Array<{ id: string }> = await conn.execute(
      `select distinct p.id, p.captured_at ${from} order by p.captured_at asc nulls last, p.id asc limit ? offset ?`,
      [eventId, wanted, request.pageSize, request.offset],
    );
    return { items: rows.map((r) => ({ id: r.id })), pageInfo: pageInfo(total, request) };
  }
}
