import { composeServices } from '@apollo/composition';
import { DEFAULT_PORTS, SubgraphName } from '@em/core';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';

const SUBGRAPHS: SubgraphName[] = ['events', 'images', 'search', 'media'];

/** Default routing URLs written into the supergraph; the gateway overrides them from its config. */
const DEFAULT_URLS: Record<SubgraphName, string> = {
  events: `http://127.0.0.1:${DEFAULT_PORTS.events}/graphql`,
  images: `http://127.0.0.1:${DEFAULT_PORTS.images}/graphql`,
  search: `http://127.0.0.1:${DEFAULT_PORTS.search}/graphql`,
  media: `http://127.0.0.1:${DEFAULT_PORTS.media}/graphql`,
};

/** Each subgraph's `schema.graphql`, written by its build from its own schema builder. */
export function subgraphSdls(): Record<SubgraphName, string> {
  const out = {} as Record<SubgraphName, string>;
  for (const name of SUBGRAPHS)
    out[name] = readFileSync(require.resolve(`@em/subgraph-${name}/schema.graphql`), 'utf8');
  return out;
}

/** Composes the subgraphs' schema files into the supergraph SDL the gateway serves (no network involved). */
export async function composeSupergraph(sdls: Record<SubgraphName, string> = subgraphSdls()): Promise<string> {
  const result = composeServices(
    SUBGRAPHS.map((name) => ({ name, url: DEFAULT_URLS[name], typeDefs: parse(sdls[name]) })),
  );
  if (result.errors?.length) {
    const lines = result.errors.map((e) => `- [${(e.extensions?.code as string) ?? 'COMPOSITION'}] ${e.message}`);
    throw new Error(`Supergraph composition failed:\n${lines.join('\n')}`);
  }
  return result.supergraphSdl!;
}
