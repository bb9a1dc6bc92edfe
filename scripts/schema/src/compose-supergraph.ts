import { writeFileSync } from 'node:fs';
import { config } from '@em/core';
import { composeSupergraph } from './supergraph';

/** `npm run supergraph`: writes supergraph.graphql from the subgraphs' code. */
composeSupergraph()
  .then((sdl) => {
    const target = config().SUPERGRAPH_PATH;
    writeFileSync(target, sdl);
    console.log(`supergraph written to ${target}`);
  })
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
