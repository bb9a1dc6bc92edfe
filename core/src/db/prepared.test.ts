import type { Orm } from './orm';
import { runPrepared } from './prepared';

/** An ORM whose knex pool hands out one fake connection, recording what it is asked. */
function fakeOrm(query: (config: { name: string; text: string; values: unknown[] }) => Promise<{ rows: unknown[] }>) {
  const log: string[] = [];
  const connection = { query: jest.fn(query) };
  const client = {
    acquireConnection: async () => (log.push('acquire'), connection),
    releaseConnection: async (c: unknown) => void log.push(c === connection ? 'release' : 'release another'),
  };
  const orm = { em: { getConnection: () => ({ getKnex: () => ({ client }) }) } } as unknown as Orm;
  return { orm, connection, log };
}

describe('runPrepared', () => {
  const statement = { name: 'events_access', text: 'select 1 where $1::int > 0' };

  it('runs the statement by name with its values on a pooled connection, and gives the connection back', async () => {
    const { orm, connection, log } = fakeOrm(async () => ({ rows: [{ id: 1 }] }));
    await expect(runPrepared(orm, statement, [7])).resolves.toEqual([{ id: 1 }]);
    expect(connection.query).toHaveBeenCalledWith({ name: 'events_access', text: statement.text, values: [7] });
    expect(log).toEqual(['acquire', 'release']);
  });

  it('runs on the pool of an entity manager (a repository built on a unit of work) as well', async () => {
    const { orm, connection } = fakeOrm(async () => ({ rows: [] }));
    await expect(runPrepared(orm.em as never, statement, [1])).resolves.toEqual([]);
    expect(connection.query).toHaveBeenCalledTimes(1);
  });

  it('gives the connection back when the statement fails', async () => {
    const { orm, log } = fakeOrm(async () => Promise.reject(new Error('boom')));
    await expect(runPrepared(orm, statement, [7])).rejects.toThrow('boom');
    expect(log).toEqual(['acquire', 'release']);
  });
});
