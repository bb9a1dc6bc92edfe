import 'reflect-metadata';
import { loadConfig } from '@em/core';
import { Supergraph } from '@apollo/federation-internals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTES } from '@em/rest-adapter';
import { OperationLimiter, operationLimitsOf } from '../operations/operation-limits';
import { FAST_PATH_MAX_QUERY_CHARS, SingleFetchPlans } from './single-fetch-plans';

const sdl = readFileSync(path.join(__dirname, '..', '..', '..', 'supergraph.graphql'), 'utf8');
const limits = new OperationLimiter(
  Supergraph.build(sdl).apiSchema().toGraphQLJSSchema(),
  operationLimitsOf(loadConfig({ DATA_DIR: '/nonexistent' })),
);
const plans = SingleFetchPlans.fromSupergraphSdl(sdl, limits);

describe('SingleFetchPlans', () => {
  it("takes the REST adapter's read routes (one subgraph each), with the subgraph and only the variables it uses", () => {
    const gallery = ROUTES.find((r) => r.method === 'GET' && r.path === '/:orgId/event/:eventId/images')!;
    const plan = plans.planOf(gallery.operation, undefined);
    expect(plan).toMatchObject({ serviceName: 'images', label: 'photos' });
    expect(plan!.variableUsages.sort()).toEqual(['eventId', 'orgId', 'page', 'pageSize']);
    for (const route of ROUTES.filter((r) => r.method === 'GET' && /images|details|ping/.test(r.path))) {
      expect({ path: route.path, plan: plans.planOf(route.operation, undefined) !== null }).toEqual({
        path: route.path,
        plan: true,
      });
    }
    // BIB search: the search subgraph finds the ids, the images subgraph resolves the photos (two fetches).
    const bibs = ROUTES.find((r) => r.path === '/:orgId/event/:eventId/bibs/:bib')!;
    expect(plans.planOf(bibs.operation, undefined)).toBeNull();
  });

  it("keeps the client's aliases and directives: the subgraph selects exactly what the client did", () => {
    const plan = plans.planOf(
      'query G($s: Boolean!) { gallery: photos(orgId: 1, eventId: 2) { items { key: id w: width meta @skip(if: $s) { photoTimestamp } } } }',
      undefined,
    );
    expect(plan?.subgraphQuery).toBe(
      'query G__images__0($s:Boolean!){gallery:photos(orgId:1 eventId:2){items{key:id w:width meta@skip(if:$s){photoTimestamp}}}}',
    );
  });

  it('leaves to Apollo what is not one fetch of the same selections', () => {
    const refused = [
      '{ photos(orgId: 1, eventId: 1) { items { id } } ping(orgId: 1, eventId: 1) { status } }', // two subgraphs
      'query { ...Q } fragment Q on Query { ping(orgId: 1, eventId: 1) { status } }', // fragments
      'mutation { goLive(orgId: 1, eventId: 1) { published } }', // not a query
      '{ __typename }', // answered by the gateway itself
      '{ __schema { queryType { name } } }', // introspection
      '{ photos(orgId: 1, eventId: 1) { items { nope } } }', // does not validate
      '{ photos(orgId: 1, eventId: 1) { items { id } ', // does not parse
      `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: ping(orgId: 1, eventId: 1) { status }`).join(' ')} }`, // over the alias limit
    ];
    for (const query of refused) expect({ query, plan: plans.planOf(query, undefined) }).toEqual({ query, plan: null });
  });

  it('holds no plan for a text over the size it plans, however valid', () => {
    const query = 'query P { ping(orgId: 1, eventId: 1) { status } }';
    expect(plans.planOf(query, undefined)).not.toBeNull();
    expect(plans.planOf(`${query} #${'x'.repeat(FAST_PATH_MAX_QUERY_CHARS)}`, undefined)).toBeNull();
  });

  it('picks the named operation and caches per text and name', () => {
    const query = 'query A { ping(orgId: 1, eventId: 1) { status } } query B { ping(orgId: 1, eventId: 1) { orgId } }';
    expect(plans.planOf(query, 'B')).toBeNull(); // several operations: Apollo picks
    const single = 'query B { ping(orgId: 1, eventId: 1) { orgId } }';
    expect(plans.planOf(single, 'B')).toBe(plans.planOf(single, 'B'));
    expect(plans.planOf(single, 'C')).toBeNull();
  });
});
