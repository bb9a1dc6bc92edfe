/**
 * What a browser gets at GET /graphql: a small self-contained sandbox (no CDN: the machine may be
 * offline) to run operations with an API key or a bearer token, example operations, and links to the schema SDL of
 * the supergraph's API and of the gateway's subscriptions.
 */
export function landingPage(examples: Record<string, string>): string {
  const options = Object.keys(examples)
    .map((name) => `<option>${name}</option>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL: event photo &amp; video discovery</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5rem;max-width:1100px}textarea,pre{width:100%;font:13px ui-monospace,monospace;box-sizing:border-box}
textarea{height:14rem}pre{background:#f4f4f4;padding:.75rem;min-height:6rem;white-space:pre-wrap}input{width:28rem}label{display:block;margin:.5rem 0}</style></head>
<body><h1>GraphQL</h1>
<p>POST <code>/graphql</code> with <code>X-API-Key</code> (or <code>Authorization: Bearer</code>). Schema:
<a href="/graphql/schema.graphql">API SDL</a> · <a href="/graphql/subscriptions.graphql">subscriptions SDL</a> (graphql-ws on <code>ws://…/graphql</code>) · REST: <a href="/docs">/docs</a> on the REST port.</p>
<label>API key, or a bearer token for the administration <input id="key" type="password" autocomplete="off" placeholder="emk_… or eyJ…"></label>
<label>Example <select id="example">${options}</select></label>
<textarea id="query"></textarea>
<label>Variables (JSON)</label><textarea id="variables" style="height:4rem">{}</textarea>
<p><button id="run">Run</button></p><pre id="result"></pre>
<script>
const examples = ${JSON.stringify(examples)};
const $ = (id) => document.getElementById(id);
// The credential stays in the field only: never in localStorage, where any script of this origin could read it later.
localStorage.removeItem('apiKey');
const pick = () => { $('query').value = examples[$('example').value]; };
$('example').onchange = pick; pick();
$('run').onclick = async () => {
  const credential = $('key').value.trim();
  const auth = credential && !credential.startsWith('emk_') ? { authorization: 'Bearer ' + credential } : { 'x-api-key': credential };
  const res = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ query: $('query').value, variables: JSON.parse($('variables').value || '{}') }) });
  $('result').textContent = res.status + '\\n' + JSON.stringify(await res.json(), null, 2);
};
</script></body></html>`;
}

/** Example operations for internal apps (the README shows the same). */
export const EXAMPLE_OPERATIONS: Record<string, string> = {
  'event and gallery': `query {
  event(orgId: 1, eventId: 1) { name bibSearch selfieSearch videoSelfieSearch }
  photos(orgId: 1, eventId: 1, pageSize: 5) { items { id largeUrl meta { photoTimestamp originalFileName } } pageInfo { total } }
}`,
  'BIB search and timeline': `query {
  bibSearch(orgId: 1, eventId: 1, bib: "1207") { items { id thumbnailUrl } pageInfo { total } }
  timelineDays(orgId: 1, eventId: 1) { date total hours { hour count } }
}`,
  'stored face search': `query {
  faceSearch(orgId: 1, eventId: 1, requestId: "<request id>") { items { similarity photo { id largeUrl } } pageInfo { total } }
  faceSearchUsage(orgId: 1) { billableSearches cachedRetries }
}`,
  'video clipping result': `query {
  eventVideos(orgId: 1, eventId: 1) { sourceKey status indexProgress durationSeconds }
  videoClipping(orgId: 1, eventId: 1, requestId: "<request id>") { status videos { videoUrl startTime endTime } clipErrors { videoKey error } }
}`,
  'original downloads': `query {
  originalDownloads(orgId: 1, eventId: 1, method: "bib", identifier: "1207") { presignedUrls { url fileName } failedUrls { imageId error } }
}`,
  'pipeline status': `query { pipelineStatus(orgId: 1, eventId: 1) { isLive total processed failed progress } }`,
  // Administration: a bearer token (events:write) of an organisation admin; createOrganisation needs a platform administrator.
  'administration: organisations and members': `mutation {
  createOrganisation(name: "City Runners") { id slug role }
  inviteMember(orgId: 1, email: "photographer@example.org", role: "user") { accountId status }
}`,
  'administration: create an event': `mutation {
  createEvent(orgId: 1, input: { name: "City 10K 2026", eventDate: "2026-05-17T09:00", timeZone: "Europe/Paris", status: "active",
    bibSearch: true, selfieSearch: true, timelineSearch: true, confidenceThreshold: 70, watermarkText: "City 10K" }) { id slug status }
}`,
  'administration: switch a flag off': `mutation { updateEvent(orgId: 1, eventId: 1, input: { bibSearch: false }) { id bibSearch } }`,
  'administration: delete an event': `mutation { deleteEvent(orgId: 1, eventId: 2, confirm: true) { state percent } }
# then: query { eventDeletion(orgId: 1, eventId: 2) { state percent objectsDeleted objectsFound } }`,
  'administration: usage': `query {
  usage(orgId: 1) { rows { eventId month faceSearchesBilled photosProcessed videosIndexed clipsMade } totals { faceSearchesBilled } }
  members(orgId: 1) { accountId email role status }
}`,
};
