import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { AppError, Config, LruMap } from '@em/core';
import { DocumentNode, GraphQLError, GraphQLSchema, Kind, parse, validate } from 'graphql';
import { fragmentsOf, FragmentExpansionError, rootFieldsOf } from './root-fields';

export interface OperationLimits {
  maxTokens: number;
  maxAliases: number;
  maxRootFields: number;
  maxDepth: number;
  maxDirectives: number;
}

export function operationLimitsOf(
  cfg: Pick<
    Config,
    | 'GRAPHQL_MAX_TOKENS'
    | 'GRAPHQL_MAX_ALIASES'
    | 'GRAPHQL_MAX_ROOT_FIELDS'
    | 'GRAPHQL_MAX_DEPTH'
    | 'GRAPHQL_MAX_DIRECTIVES'
  >,
): OperationLimits {
  return {
    maxTokens: cfg.GRAPHQL_MAX_TOKENS,
    maxAliases: cfg.GRAPHQL_MAX_ALIASES,
    maxRootFields: cfg.GRAPHQL_MAX_ROOT_FIELDS,
    maxDepth: cfg.GRAPHQL_MAX_DEPTH,
    maxDirectives: cfg.GRAPHQL_MAX_DIRECTIVES,
  };
}

/**
 * Cheap bounds on an operation's shape, checked before Apollo validates and plans it (its
 * validation compares fields pairwise and query planning is synchronous: 20,000 aliases held the
 * event loop for half a minute). Parsing stops at the token limit; aliases, depth and directives
 * are graphql-armor's counters, run on their own (each walks the document once, fragments
 * memoised); root fields are counted with fragments opened. Applies to queries, mutations and
 * subscriptions alike.
 */
const REMEMBERED_TEXT_MAX_CHARS = 8 * 1024;

export class OperationLimiter {
  private readonly rules;
  /** Texts that passed (the same few operations come again and again); long ones are not held. */
  private readonly passed = new LruMap<string, true>(500);

  constructor(
    private readonly schema: GraphQLSchema,
    readonly limits: OperationLimits,
  ) {
    this.rules = [
      maxAliasesRule({ n: limits.maxAliases }),
      maxDepthRule({ n: limits.maxDepth, flattenFragments: true }),
      maxDirectivesRule({ n: limits.maxDirectives }),
    ];
  }

  /**
   * Throws AppError BAD_REQUEST when the operation exceeds a limit. A query that does not parse
   * for another reason is left to Apollo, which answers it with its own parse error.
   */
  check(query: unknown): void {
    if (typeof query !== 'string' || this.passed.get(query)) return;
    const document = this.parse(query);
    if (!document) return;
    try {
      validate(this.schema, document, this.rules);
    } catch (err) {
      if (err instanceof GraphQLError) throw refusal(err.message.replace(/^Syntax Error: /, ''));
      throw err;
    }
    const fragments = fragmentsOf(document);
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const count = rootFieldCount(definition, fragments);
      if (count > this.limits.maxRootFields)
        throw refusal(`Root field limit of ${this.limits.maxRootFields} exceeded, found ${count}.`);
    }
    if (query.length <= REMEMBERED_TEXT_MAX_CHARS) this.passed.set(query, true);
  }

  private parse(query: string): DocumentNode | null {
    try {
      return parse(query, { maxTokens: this.limits.maxTokens, noLocation: true });
    } catch (err) {
      if (err instanceof GraphQLError && /contains more (than|that) \d+ tokens/.test(err.message))
        throw refusal(`Token limit of ${this.limits.maxTokens} exceeded.`);
      return null;
    }
  }
}

function rootFieldCount(...args: Parameters<typeof rootFieldsOf>): number {
  try {
    return rootFieldsOf(...args).length;
  } catch (err) {
    if (err instanceof FragmentExpansionError) throw refusal(err.message + '.');
    throw err;
  }
}

function refusal(reason: string): AppError {
  return new AppError('BAD_REQUEST', `The operation is too large: ${reason}`);
}
