import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import {
  DocumentNode,
  getOperationAST,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  parse,
  validate,
  OperationTypeNode,
} from 'graphql';
import { LruMap } from '@em/core';
import { operationLabel } from './operation-observer';

/**
 * The longest operation text (with its name) compiled and held. The gateway's planner writes a few
 * hundred characters for the REST routes; a longer text (a caller's megabyte alias) goes to
 * Apollo, whose document store is bounded in bytes.
 */
export const COMPILED_MAX_QUERY_CHARS = 16 * 1024;

/** What a subgraph formats each error with (formatSubgraphError): Apollo's formatted error and the error itself. */
export type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/** A compiled query, and the label of its first root field for metrics and logs. */
interface Compiled {
  query: CompiledQuery;
  label: string;
}

/** The answer of a compiled operation, or null: let Apollo answer this one (see `run`). */
export type CompiledAnswer = {
  body: string;
  label: string;
  errorCode: string | null;
  firstError: string | null;
  dataOnly: boolean;
} | null;

/**
 * The subgraph's common case without Apollo's request pipeline: a query (not a mutation or a
 * subscription) that parses and validates, parsed, validated and compiled by graphql-jit once per
 * query text and operation name, then run straight against the same schema (the same resolvers,
 * federation's `_entities` and `_service` included).
 *
 * Everything else goes to Apollo unchanged, so that its answers stay exactly Apollo's: documents
 * that do not parse or validate, mutations, subscriptions, and variables that cannot be coerced
 * (nothing has run by then). Errors raised while executing are formatted as Apollo would:
 * `extensions.code` defaults to INTERNAL_SERVER_ERROR, then the subgraph's own formatter.
 */
export class CompiledOperations {
  private readonly cache: LruMap<string, Compiled | null>;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly formatError: ErrorFormatter,
    maxEntries = 500,
  ) {
    this.cache = new LruMap(maxEntries);
  }

  /** Runs the operation; null when Apollo must answer it instead. */
  async run(body: unknown, context: object): Promise<CompiledAnswer> {
    if (!isPlainRequest(body)) return null;
    const compiled = this.compiled(body.query, body.operationName ?? undefined);
    if (!compiled) return null;
    const result = await compiled.query.query(undefined, context, body.variables ?? {});
    // Without `data` the variables were refused before anything ran: Apollo words that answer (400).
    if (!('data' in result)) return null;
    const errors = result.errors?.map((error) => this.formatError(apolloFormatted(error), error));
    const answer = errors?.length ? { errors, data: result.data } : { data: result.data };
    return {
      body: JSON.stringify(answer) + '\n',
      label: compiled.label,
      errorCode: errors?.length ? String((errors[0].extensions?.code as string | undefined) ?? 'ERROR') : null,
      firstError: errors?.[0]?.message ?? null,
      dataOnly: !errors?.length && typeof result.data === 'object' && result.data !== null,
    };
  }

  private compiled(query: string, operationName: string | undefined): Compiled | null {
    const key = `${operationName ?? ''}\n${query}`;
    if (key.length > COMPILED_MAX_QUERY_CHARS) return null;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const compiled = this.compile(query, operationName);
    this.cache.set(key, compiled);
    return compiled;
  }

  private compile(query: string, operationName: string | undefined): Compiled | null {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return null;
    }
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== OperationTypeNode.QUERY) return null;
    if (validate(this.schema, document).length > 0) return null;
    try {
      const compiled = compileQuery(this.schema, document, operationName);
      if (!isCompiledQuery(compiled)) return null;
      return { query: compiled, label: operationLabel(operation) };
    } catch {
      return null;
    }
  }
}

interface PlainRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

function isPlainRequest(body: unknown): body is PlainRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  if (typeof query !== 'string' || extensions !== undefined) return false;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return false;
  return variables === undefined || variables === null || (typeof variables === 'object' && !Array.isArray(variables));
}

/** The error as Apollo Server hands it to `formatError`: its JSON, with a code always. */
function apolloFormatted(error: GraphQLError): GraphQLFormattedError {
  const json = error instanceof GraphQLError ? error.toJSON() : { message: String((error as Error)?.message ?? error) };
  return { ...json, extensions: { ...json.extensions, code: json.extensions?.code ?? 'INTERNAL_SERVER_ERROR' } };
}
