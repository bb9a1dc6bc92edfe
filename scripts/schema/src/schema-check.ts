import { Supergraph } from '@apollo/federation-internals';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { GraphQLSchema } from 'graphql';

export interface SchemaCheckReport {
  ok: boolean;
  /** Changes from the committed API schema to the one the subgraphs compose to, breaking first. */
  changes: Array<{ level: 'BREAKING' | 'DANGEROUS' | 'NON_BREAKING'; message: string }>;
}

const apiSchema = (supergraphSdl: string): GraphQLSchema =>
  Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();

/**
 * Compares the composed supergraph with the committed one. Any difference fails (the committed
 * file must be the composition of the code), and the API-level changes are listed with their
 * criticality, so a breaking change is named as such in CI.
 */
export async function checkSupergraph(committedSdl: string, composedSdl: string): Promise<SchemaCheckReport> {
  if (committedSdl === composedSdl) return { ok: true, changes: [] };
  const changes = (await diff(apiSchema(committedSdl), apiSchema(composedSdl)))
    .map((c) => ({ level: c.criticality.level, message: c.message }))
    .sort((a, b) => rank(a.level) - rank(b.level));
  return { ok: false, changes };
}

const rank = (level: CriticalityLevel) =>
  level === CriticalityLevel.Breaking ? 0 : level === CriticalityLevel.Dangerous ? 1 : 2;
