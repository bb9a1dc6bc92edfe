import type { NameMatch, StartListEntry, StartListRepository } from '../start-list.repository';
import { MAX_NAME_WORDS } from '../start-list.repository';

/** Folds like the SQL (without unaccent's extra letters): accents off, lower case, words. */
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Start lists in memory; the name search matches word prefixes only (no typo tolerance). */
export class InMemoryStartListRepository implements StartListRepository {
  readonly lists = new Map<number, StartListEntry[]>();
  /** Published photo count per `${eventId}/${bib}`, for the name search's answers. */
  readonly photoCounts = new Map<string, number>();

  private of(eventId: number): StartListEntry[] {
    return this.lists.get(eventId) ?? [];
  }
  async count(eventId: number) {
    return this.of(eventId).length;
  }
  async bibs(eventId: number) {
    return this.of(eventId).map((e) => e.bib);
  }
  async bibsAmong(eventId: number, bibs: readonly string[]) {
    const listed = new Set(this.of(eventId).map((e) => e.bib));
    return new Set(bibs.filter((b) => listed.has(b)));
  }
  async containing(eventId: number, fragment: string, limit: number) {
    return this.of(eventId)
      .map((e) => e.bib)
      .filter((b) => b.includes(fragment))
      .slice(0, limit);
  }
  async list(eventId: number) {
    return [...this.of(eventId)];
  }
  async replace(eventId: number, entries: readonly StartListEntry[]) {
    this.lists.set(eventId, [...entries]);
  }
  async append(eventId: number, entries: readonly StartListEntry[]) {
    const listed = new Set(this.of(eventId).map((e) => e.bib));
    if (entries.some((e) => listed.has(e.bib))) throw new Error('duplicate key value violates unique constraint');
    this.lists.set(eventId, [...this.of(eventId), ...entries]);
  }
  async searchByName(eventId: number, query: string, limit: number): Promise<NameMatch[]> {
    const words = fold(query).slice(0, MAX_NAME_WORDS);
    if (words.length === 0) return [];
    return this.of(eventId)
      .filter((e) => words.every((w) => fold(e.name).some((n) => n.startsWith(w))))
      .slice(0, limit)
      .map((e) => ({ bib: e.bib, name: e.name, photoCount: this.photoCounts.get(`${eventId}/${e.bib}`) ?? 0 }));
  }
}
