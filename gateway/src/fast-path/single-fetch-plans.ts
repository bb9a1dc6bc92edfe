import { operationFromDocument, Supergraph } from '@apollo/federation-internals';
import { QueryPlanner } from '@apollo/query-planner';
import { findOperationPolicy, LruMap } from '@em/core';
import { operationLabel } from '@em/subgraph-kit';
import {
  getOperationAST,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  parse,
  print,
  validate,
  OperationTypeNode,
} from 'graphql';
import { OperationLimiter } from '../operations/operation-limits';

/**
 * The longest operation text (with its name) the single-fetch path plans and holds. The REST
 * adapter's operations are a few hundred characters; a longer text goes to Apollo, whose document
 * store is bounded in bytes, so that nobody fills this cache with megabyte-long texts.
 */
export const FAST_PATH_MAX_QUERY_CHARS = 8 * 1024;

/** A query whose whole answer is one subgraph's answer to the same selections. */
export interface SingleFetchPlan {
  operation: OperationDefinitionNode;
  /** The first root field: the operation's label in metrics and logs. */
  label: string;
  serviceName: string;
  /** The subgraph operation the query planner wrote for it. */
  subgraphQuery: string;
  subgraphOperationName: string | undefined;
  /** The variables that operation uses (the only ones the gateway forwards). */
  variableUsages: string[];
}

/**
 * Which operations the gateway may answer by forwarding one subgraph's answer as it is, decided
 * once per query text and operation name (a bounded cache, like Apollo's document store): a query
 * that passes the operation limits and validates against the API schema, with no fragments and
 * no face-matching field (those are charged per field; see the rate-limit plugin), whose query
 * plan is a single fetch without requirements or rewrites, to an operation selecting exactly what
 * the client selected (same fields, aliases, arguments and directives, no added `__typename`).
 * Then the subgraph's `data` is, byte for byte, what Apollo Gateway would have built from it.
 */
export class SingleFetchPlans {
  private readonly cache: LruMap<string, SingleFetchPlan | null>;

  constructor(
    private readonly apiSchema: GraphQLSchema,
    private readonly supergraph: Supergraph,
    private readonly planner: QueryPlanner,
    private readonly limits: OperationLimiter,
    maxEntries = 1000,
  ) {
    this.cache = new LruMap(maxEntries);
  }

  static fromSupergraphSdl(sdl: string, limits: OperationLimiter): SingleFetchPlans {
    const supergraph = Supergraph.build(sdl);
    return new SingleFetchPlans(
      supergraph.apiSchema().toGraphQLJSSchema(),
      supergraph,
      new QueryPlanner(supergraph),
      limits,
    );
  }

  get schema(): GraphQLSchema {
    return this.apiSchema;
  }

  /** The plan of a query that qualifies, or null (then Apollo answers it). */
  planOf(query: string, operationName: string | undefined): SingleFetchPlan | null {
    const key = `${operationName ?? ''}\n${query}`;
    if (key.length > FAST_PATH_MAX_QUERY_CHARS) return null;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    let plan: SingleFetchPlan | null;
    try {
      plan = this.prepare(query, operationName);
    } catch {
      plan = null;
    }
    this.cache.set(key, plan);
    return plan;
  }

  private prepare(query: string, operationName: string | undefined): SingleFetchPlan | null {
    this.limits.check(query); // throws when the operation is over a limit: Apollo's path refuses and charges it
    const document = parse(query, { noLocation: true, maxTokens: this.limits.limits.maxTokens });
    if (document.definitions.length !== 1) return null;
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== OperationTypeNode.QUERY) return null;
    if (
      !operation.selectionSet.selections.every(
        (s) => s.kind === Kind.FIELD && findOperationPolicy(s.name.value)?.rate !== 'matching',
      )
    )
      return null;
    if (validate(this.apiSchema, document).length > 0) return null;
    const plan = this.planner.buildQueryPlan(
      operationFromDocument(this.supergraph.apiSchema(), document, { operationName }),
    );
    const fetch = plan.node;
    if (
      fetch?.kind !== 'Fetch' ||
      fetch.requires ||
      fetch.inputRewrites?.length ||
      fetch.outputRewrites?.length ||
      fetch.contextRewrites?.length ||
      fetch.hasDefers
    )
      return null;
    const subgraphOperation = getOperationAST(parse(fetch.operation, { noLocation: true }), fetch.operationName);
    if (!subgraphOperation || print(subgraphOperation.selectionSet) !== print(operation.selectionSet)) return null;
    return {
      operation,
      label: operationLabel(operation),
      serviceName: fetch.serviceName,
      subgraphQuery: fetch.operation,
      subgraphOperationName: fetch.operationName,
      variableUsages: fetch.variableUsages ?? [],
    };
  }
}
