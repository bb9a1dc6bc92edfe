import { AppError, Principal } from '@em/core';
import { accessOnly, EventsRepository, guardOperation, NameMatch, StartListRepository } from '@em/core/data';

/** The most participants one name search answers: enough to pick oneself, too few to list the start list. */
export const NAME_SEARCH_MAX_RESULTS = 20;
/** A query shorter than this (letters and digits) is refused: one letter would list half the field. */
export const NAME_SEARCH_MIN_CHARS = 2;
const NAME_SEARCH_MAX_CHARS = 100;

/** Participants of the start list found by name (accents, case, word prefixes, small typos), each with their bib and photo count. */
export class NameSearchService {
  constructor(
    private readonly events: EventsRepository,
    private readonly startLists: StartListRepository,
  ) {}

  async search(principal: Principal, orgId: number, eventId: number, query: string): Promise<NameMatch[]> {
    await guardOperation(accessOnly(this.events), principal, 'searchByName', orgId, eventId);
    const letters = query.replace(/[^\p{L}\p{N}]/gu, '');
    if (query.length > NAME_SEARCH_MAX_CHARS)
      throw new AppError('BAD_USER_INPUT', `A name search is at most ${NAME_SEARCH_MAX_CHARS} characters`, {
        field: 'query',
      });
    if (letters.length < NAME_SEARCH_MIN_CHARS) {
      throw new AppError('BAD_USER_INPUT', `Type at least ${NAME_SEARCH_MIN_CHARS} letters of the name`, {
        field: 'query',
      });
    }
    return this.startLists.searchByName(eventId, query, NAME_SEARCH_MAX_RESULTS);
  }
}
