import { REPO_ROOT } from '@em/core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkSupergraph } from './schema-check';
import { composeSupergraph, subgraphSdls } from './supergraph';

// The subgraphs' schema.graphql files are written by their builds (turbo builds them before this test).
describe("the supergraph is composed from the subgraphs' schema files", () => {
  const committed = readFileSync(path.join(REPO_ROOT, 'supergraph.graphql'), 'utf8');

  it('every subgraph has written its schema.graphql, and they compose to the committed supergraph', async () => {
    const sdls = subgraphSdls();
    expect(Object.keys(sdls).sort()).toEqual(['events', 'images', 'media', 'search']);
    for (const sdl of Object.values(sdls)) expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/');
    expect(await checkSupergraph(committed, await composeSupergraph(sdls))).toEqual({ ok: true, changes: [] });
  });

  it('a subgraph schema file that drifts from the committed supergraph fails the check', async () => {
    const sdls = subgraphSdls();
    const drifted = {
      ...sdls,
      events: `${sdls.events}\ntype DriftProbe @key(fields: "id") { id: ID! }\nextend type Query { driftProbe: DriftProbe }\n`,
    };
    const report = await checkSupergraph(committed, await composeSupergraph(drifted));
    expect(report.ok).toBe(false);
    expect(report.changes.map((c) => c.message).join('\n')).toContain('driftProbe');
  });
});
