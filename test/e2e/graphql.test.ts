import { readFileSync } from 'node:fs';
import path from 'node:path';
import { composeSupergraph } from '@em/schema-tools';
import { REPO_ROOT } from '@em/core';
import { gql, info } from './support/platform';

describe('GraphQL through the gateway', () => {
  it('serves the same data as REST, in GraphQL naming', async () => {
    const { status, body } = await gql(
      `query($o: Int!, $e: Int!) {
        event(orgId: $o, eventId: $e) { id name bibSearch videoSelfieSearch }
        photos(orgId: $o, eventId: $e, pageSize: 2) { items { id largeUrl meta { photoTimestamp } } pageInfo { total pageSize currentPage } }
        timelineDays(orgId: $o, eventId: $e) { date total hours { hour count } }
        bibSearch(orgId: $o, eventId: $e, bib: "none") { items { id } pageInfo { total currentPage } }
        eventVideos(orgId: $o, eventId: $e) { sourceKey originalFileName }
      }`,
      { o: info.demo.orgId, e: info.demo.eventId },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.event).toEqual({
      id: info.demo.eventId,
      name: 'Demo City 10K',
      bibSearch: true,
      videoSelfieSearch: true,
    });
    expect(body.data.photos.pageInfo).toEqual({ total: 8, pageSize: 2, currentPage: 1 });
    expect(body.data.photos.items).toHaveLength(2);
    expect(body.data.timelineDays.reduce((n: number, d: any) => n + d.total, 0)).toBe(8);
    expect(body.data.bibSearch).toEqual({ items: [], pageInfo: { total: 0, currentPage: 0 } });
    expect(body.data.eventVideos).toEqual([
      { sourceKey: 'finish-line-camera', originalFileName: 'finish-line-camera.mp4' },
    ]);
  });

  it('authenticates at the gateway with the HTTP status of the error', async () => {
    const none = await gql('{ ping(orgId: 1, eventId: 1) { status } }', {}, null);
    expect(none.status).toBe(401);
    expect(none.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    const bad = await gql('{ ping(orgId: 1, eventId: 1) { status } }', {}, 'emk_unknownKeyForSure123456');
    expect(bad.status).toBe(403);
    expect(bad.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it('reports authorisation errors with their codes', async () => {
    const { body } = await gql('{ event(orgId: 999, eventId: 1) { id } }');
    expect(body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it('subgraphs refuse calls that do not come through the gateway', async () => {
    for (const port of [info.ports.events, info.ports.images, info.ports.search, info.ports.media]) {
      const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-principal': 'forged.token' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(res.status).toBe(401);
    }
  });

  it('the committed supergraph is the composition of the subgraphs as they are', async () => {
    const committed = readFileSync(path.join(REPO_ROOT, 'supergraph.graphql'), 'utf8');
    expect(committed).toBe(await composeSupergraph());
  });

  it('a browser gets an offline sandbox with examples, and the SDLs of the API and of the subscriptions', async () => {
    const page = await fetch(info.gatewayUrl, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="run"');
    expect(html).not.toMatch(/https?:\/\/(cdn|embeddable|unpkg|jsdelivr)/);
    const api = await (await fetch(`${info.gatewayUrl}/schema.graphql`)).text();
    expect(api).toContain('searchFaces(');
    expect(api).not.toContain('join__');
    const subscriptions = await (await fetch(`${info.gatewayUrl}/subscriptions.graphql`)).text();
    expect(subscriptions).toContain('clipStatus(orgId: Int!, eventId: Int!, requestId: String!): ClipStatus!');
  });
});
