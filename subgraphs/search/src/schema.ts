import { buildFederatedSchema } from '@em/subgraph-kit';
import { ContainerType } from 'type-graphql';
import { BibSearchResolver } from './bibs/bib-search.resolver';
import { FaceSearchResolver } from './faces/face-search.resolver';
import { NameSearchResolver } from './names/name-search.resolver';

export const RESOLVERS = [BibSearchResolver, FaceSearchResolver, NameSearchResolver] as const;

/** The search subgraph: BIB search, name search (the start list), and selfie search with its request_id cache. */
export function buildSearchSchema(container?: ContainerType) {
  return buildFederatedSchema({ resolvers: RESOLVERS, container });
}
