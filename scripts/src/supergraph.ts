import 'reflect-metadata';
import { composeServices } from '@apollo/composition';
import { printSubgraphSchema } from '@apollo/subgraph';
import { DEFAULT_PORTS, SubgraphName } from '@em/core';
import { buildEventsSchema } from '@em/subgraph-events';
import { buildImagesSchema } from '@em/subgraph-images';
import { buildMediaSchema } from '@em/subgraph-media';
import { buildSearchSchema } from '@em/subgraph-search';
import { GraphQLSchema, parse } from 'graphql';

const BUILDERS: Record<SubgraphName, () => Promise<GraphQLSchema>> = {
  events: () => buildEventsSchema(),
  images: () => buildImagesSchema(),
  search: () => buildSearchSchema(),
  media: () => buildMediaSchema(),
};

/** Default routing URLs written into the supergraph; the gateway overrides them from its config. */
const DEFAULT_URLS: Record<SubgraphName, string> = {
  events: `http://127.0.0.1:${DEFAULT_PORTS.events}/graphql`,
  images: `http://127.0.0.1:${DEFAULT_PORTS.images}/graphql`,
  search: `http://127.0.0.1:${DEFAULT_PORTS.search}/graphql`,
  media: `http://127.0.0.1:${DEFAULT_PORTS.media}/graphql`,
};

export async function subgraphSdls(): Promise<Record<SubgraphName, string>> {
  const out = {} as Record<SubgraphName, string>;
  for (const [name, build] of Object.entries(BUILDERS) as Array<[SubgraphName, () => Promise<GraphQLSchema>]>) {
    out[name] = printSubgraphSchema(await build());
  }
  return out;
}

/** Composes the subgraphs' schemas into the supergraph SDL the gateway serves (no network involved). */
export async function composeSupergraph(): Promise<string> {
  const sdls = await subgraphSdls();
  const result = composeServices(
    (Object.keys(sdls) as SubgraphName[]).map((name) => ({ name, url: DEFAULT_URLS[name], typeDefs: parse(sdls[name]) })),
  );
  if (result.errors?.length) {
    const lines = result.errors.map((e) => `- [${(e.extensions?.code as string) ?? 'COMPOSITION'}] ${e.message}`);
    throw new Error(`Supergraph composition failed:\n${lines.join('\n')}`);
  }
  return result.supergraphSdl!;
}
