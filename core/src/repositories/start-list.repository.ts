import { EntityManager } from '@mikro-orm/core';
import { Orm } from '../db/orm';
import { PUBLISHED, SEARCHABLE_READ } from './photos.repository';

/** One participant of a start list: a bib and who wears it. */
export interface StartListEntry {
  bib: string;
  firstName: string | null;
  lastName: string | null;
  /** The display name (`first_name last_name` when the file had those columns). */
  name: string;
  category: string | null;
  team: string | null;
}

/** A participant found by name, with the number of published photos their bib is on. */
export interface NameMatch {
  bib: string;
  name: string;
  photoCount: number;
}

/**
 * How a name is folded for search, in SQL so that stored names and queries fold alike (unaccent
 * knows more than Unicode decomposition: ß, ø, æ). Non-alphanumerics become single spaces.
 */
const FOLD = (expression: string) => `trim(regexp_replace(lower(unaccent(${expression})), '[^[:alnum:]]+', ' ', 'g'))`;

/** Rows per insert statement (one JSON parameter each). */
const INSERT_CHUNK = 20_000;

/** Every query of `start_list_entries`. */
export interface StartListRepository {
  /** How many participants the event's start list has. */
  count(eventId: number): Promise<number>;
  /** The bibs of the event's start list. */
  bibs(eventId: number): Promise<string[]>;
  /** The bibs among `bibs` already on the event's start list. */
  bibsAmong(eventId: number, bibs: readonly string[]): Promise<Set<string>>;
  /** Listed numbers holding `fragment` as a contiguous part, at most `limit`. */
  containing(eventId: number, fragment: string, limit: number): Promise<string[]>;
  /** The start list in file order (appended lines after the earlier ones). */
  list(eventId: number): Promise<StartListEntry[]>;
  /** Replaces the event's start list by `entries`, in one transaction. */
  replace(eventId: number, entries: readonly StartListEntry[]): Promise<void>;
  /** Adds `entries` after the existing ones, in one transaction; a bib already listed fails the whole call. */
  append(eventId: number, entries: readonly StartListEntry[]): Promise<void>;
  /**
   * Participants whose folded name has, for every one of `words` (folded by the same rule), a word
   * starting with it or a word close to it (trigram word similarity), best first, at most `limit`;
   * each with the number of published photos showing their bib as a searchable read.
   */
  searchByName(eventId: number, query: string, limit: number): Promise<NameMatch[]>;
}

interface EntryRow {
  bib: string;
  first_name: string | null;
  last_name: string | null;
  name: string;
  category: string | null;
  team: string | null;
}

export class SqlStartListRepository implements StartListRepository {
  private readonly em: () => EntityManager;

  /** On the ORM (a fork per call), or on the entity manager of a unit of work. */
  constructor(source: Orm | (() => EntityManager)) {
    this.em = typeof source === 'function' ? source : () => source.em.fork();
  }

  private execute<T>(sql: string, params: unknown[] = [], em: EntityManager = this.em()): Promise<T[]> {
    return em.getConnection().execute(sql, params);
  }

  async count(eventId: number): Promise<number> {
    const [row] = await this.execute<{ n: number }>(
      'select count(*)::int as n from start_list_entries where event_id = ?',
      [eventId],
    );
    return row?.n ?? 0;
  }

  async bibs(eventId: number): Promise<string[]> {
    const rows = await this.execute<{ bib: string }>('select bib from start_list_entries where event_id = ?', [
      eventId,
    ]);
    return rows.map((r) => r.bib);
  }

  async bibsAmong(eventId: number, bibs: readonly string[]): Promise<Set<string>> {
    if (bibs.length === 0) return new Set();
    const rows = await this.execute<{ bib: string }>(
      'select bib from start_list_entries where event_id = ? and bib in (select jsonb_array_elements_text(?::jsonb))',
      [eventId, JSON.stringify(bibs)],
    );
    return new Set(rows.map((r) => r.bib));
  }

  async containing(eventId: number, fragment: string, limit: number): Promise<string[]> {
    const rows = await this.execute<{ bib: string }>(
      'select bib from start_list_entries where event_id = ? and strpos(bib, ?) > 0 limit ?',
      [eventId, fragment, limit],
    );
    return rows.map((r) => r.bib);
  }

  async list(eventId: number): Promise<StartListEntry[]> {
    const rows = await this.execute<EntryRow>(
      'select bib, first_name, last_name, name, category, team from start_list_entries where event_id = ? order by position',
      [eventId],
    );
    return rows.map((r) => ({
      bib: r.bib,
      firstName: r.first_name,
      lastName: r.last_name,
      name: r.name,
      category: r.category,
      team: r.team,
    }));
  }

  async replace(eventId: number, entries: readonly StartListEntry[]): Promise<void> {
    await this.em().transactional(async (tx) => {
      await this.execute('delete from start_list_entries where event_id = ?', [eventId], tx);
      await this.insert(tx, eventId, entries, 0);
    });
  }

  async append(eventId: number, entries: readonly StartListEntry[]): Promise<void> {
    await this.em().transactional(async (tx) => {
      // One appender at a time per event, so positions stay in order.
      await this.execute('select id from events where id = ? for update', [eventId], tx);
      const [{ last }] = await this.execute<{ last: number }>(
        'select coalesce(max(position), 0)::int as last from start_list_entries where event_id = ?',
        [eventId],
        tx,
      );
      await this.insert(tx, eventId, entries, last);
    });
  }

  /** Bulk insert: one statement per chunk, the rows as one JSON parameter. */
  private async insert(
    tx: EntityManager,
    eventId: number,
    entries: readonly StartListEntry[],
    after: number,
  ): Promise<void> {
    for (let start = 0; start < entries.length; start += INSERT_CHUNK) {
      const chunk = entries.slice(start, start + INSERT_CHUNK).map((e, i) => ({
        b: e.bib,
        f: e.firstName,
        l: e.lastName,
        n: e.name,
        c: e.category,
        t: e.team,
        p: after + start + i + 1,
      }));
      await this.execute(
        `insert into start_list_entries (event_id, bib, first_name, last_name, name, category, team, name_key, position)
         select ?, x.b, x.f, x.l, x.n, x.c, x.t, ${FOLD('x.n')}, x.p
           from jsonb_to_recordset(?::jsonb) as x(b text, f text, l text, n text, c text, t text, p int)`,
        [eventId, JSON.stringify(chunk)],
        tx,
      );
    }
  }

  async searchByName(eventId: number, query: string, limit: number): Promise<NameMatch[]> {
    const [{ folded }] = await this.execute<{ folded: string }>(`select ${FOLD('?')} as folded`, [query]);
    // Folded words hold only alphanumerics, so they are safe inside the regular expression.
    const words = folded.split(' ').filter(Boolean).slice(0, MAX_NAME_WORDS);
    if (words.length === 0) return [];
    const matches = words.map(() => `(s.name_key ~ ? or ? <% s.name_key)`).join(' and ');
    const score = words
      .map(() => `(case when s.name_key ~ ? then 1 else 0 end + word_similarity(?, s.name_key))`)
      .join(' + ');
    const wordParams = words.flatMap((w) => [`(^| )${w}`, w]);
    const rows = await this.execute<{ bib: string; name: string; photo_count: number }>(
      `select s.bib, s.name,
              (select count(distinct b.photo_id)::int from photo_bibs b join photos p on p.id = b.photo_id
                where b.event_id = s.event_id and b.bib = s.bib and b.${SEARCHABLE_READ} and p.${PUBLISHED}) as photo_count
         from start_list_entries s
        where s.event_id = ? and ${matches}
        order by ${score} desc, s.name, s.bib
        limit ?`,
      [eventId, ...wordParams, ...wordParams, limit],
    );
    return rows.map((r) => ({ bib: r.bib, name: r.name, photoCount: r.photo_count }));
  }
}

/** The words of a name query that are searched (the rest are ignored). */
export const MAX_NAME_WORDS = 5;
