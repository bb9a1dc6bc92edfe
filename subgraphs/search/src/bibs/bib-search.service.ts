import { Page, PAGE_LIMITS, pageInfo, Principal, resolvePage } from '@em/core';
import { accessOnly, EventsRepository, guardOperation, PhotosRepository } from '@em/core/data';

export class BibSearchService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
  ) {}

  /** Published photos on which `bib` was read (case-insensitive), in gallery order. */
  async search(
    principal: Principal,
    orgId: number,
    eventId: number,
    bib: string,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<Page<{ id: string }>> {
    await guardOperation(accessOnly(this.events), principal, 'bibSearch', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const { total, ids } = await this.photos.publishedWithBib(eventId, bib, request);
    return { items: ids.map((id) => ({ id })), pageInfo: pageInfo(total, request) };
  }
}
