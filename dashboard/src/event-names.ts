import { gql } from './api';

export interface EventName {
  id: number;
  name: string;
}

/** The API's largest page of events. */
const EVENTS_PER_REQUEST = 100;
const EVENT_NAMES = `query($orgId: Int!, $page: Int!) { events(orgId: $orgId, page: $page, pageSize: ${EVENTS_PER_REQUEST}) {
  items { id name } pageInfo { hasNextPage } } }`;

/**
 * Every event of the organisation by id, page after page: a choice of events or a report naming them must not stop
 * at the first page (an organisation of weekly races has a hundred events in two years).
 */
export async function everyEventName(orgId: number): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  for (let page = 1; ; page++) {
    const d = await gql<{ events: { items: EventName[]; pageInfo: { hasNextPage: boolean } } }>(EVENT_NAMES, {
      orgId,
      page,
    });
    for (const e of d.events.items) names.set(e.id, e.name);
    if (!d.events.pageInfo.hasNextPage) return names;
  }
}
