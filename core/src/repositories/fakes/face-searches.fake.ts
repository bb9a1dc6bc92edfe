import {
  FaceSearchesRepository,
  FaceSearchUsageFilter,
  NewFaceSearch,
  StoredFaceSearch,
} from '../face-searches.repository';

type Row = NewFaceSearch & { billable: boolean; cacheHits: number; createdAt: Date };

/** Stored face searches in memory, keyed by event and request_id. */
export class InMemoryFaceSearchesRepository implements FaceSearchesRepository {
  readonly rows = new Map<string, Row>();

  private static key = (eventId: number, requestId: string) => `${eventId}/${requestId.toLowerCase()}`;

  get(eventId: number, requestId: string): Row | undefined {
    return this.rows.get(InMemoryFaceSearchesRepository.key(eventId, requestId));
  }

  async find(eventId: number, requestId: string): Promise<StoredFaceSearch | null> {
    const row = this.get(eventId, requestId);
    if (!row) return null;
    const { requestId: id, orgId, confidenceThreshold, matches, facesFound, embedding } = row;
    return {
      requestId: id,
      orgId,
      eventId: row.eventId,
      confidenceThreshold,
      matches: [...matches],
      facesFound,
      embedding,
    };
  }

  async insertIfAbsent(search: NewFaceSearch): Promise<boolean> {
    if (this.get(search.eventId, search.requestId)) return false;
    this.rows.set(InMemoryFaceSearchesRepository.key(search.eventId, search.requestId), {
      ...search,
      billable: true,
      cacheHits: 0,
      createdAt: new Date(),
    });
    return true;
  }

  async recordCacheHit(eventId: number, requestId: string): Promise<void> {
    const row = this.get(eventId, requestId);
    if (row) row.cacheHits++;
  }

  async usage(
    orgId: number,
    { eventId, from, to }: FaceSearchUsageFilter,
  ): Promise<{ billable: number; retries: number }> {
    const rows = [...this.rows.values()].filter(
      (r) =>
        r.orgId === orgId &&
        (eventId == null || r.eventId === eventId) &&
        (!from || r.createdAt >= from) &&
        (!to || r.createdAt < to),
    );
    return { billable: rows.filter((r) => r.billable).length, retries: rows.reduce((n, r) => n + r.cacheHits, 0) };
  }

  async existsForOrganisations(eventId: number, requestId: string, orgIds: readonly number[]): Promise<boolean> {
    const row = this.get(eventId, requestId);
    return !!row && orgIds.includes(row.orgId);
  }
}
