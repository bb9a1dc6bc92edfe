import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from './orm';

/**
 * A hot read statement run on the ORM's own connection pool as a named (server-side prepared)
 * statement: Postgres parses it once per connection instead of on every call, and the call skips
 * the ORM's and knex's query building. For the read path's few statements only; everything else
 * goes through the ORM. `text` uses $1, $2... and must be a constant: one name, one text.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/** Where the statement runs: the ORM, or (in a repository built on one) an entity manager's connection. */
export type StatementSource = Orm | EntityManager;

function knexClientOf(source: StatementSource): KnexClient {
  const connection = ('em' in source ? source.em : source).getConnection() as unknown as {
    getKnex(): { client: KnexClient };
  };
  return connection.getKnex().client;
}

export async function runPrepared<T>(
  source: StatementSource,
  statement: PreparedStatement,
  values: unknown[],
): Promise<T[]> {
  const client = knexClientOf(source);
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name: statement.name, text: statement.text, values })).rows as T[];
  } finally {
    await client.releaseConnection(connection);
  }
}
