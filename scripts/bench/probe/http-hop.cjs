// What one HTTP hop of the read path costs (issue 14, item 7: is serving REST inside the gateway worth it?).
// node scripts/bench/probe/http-hop.cjs            # 64 clients as fast as they go
// RATE=500 N=5000 node scripts/bench/probe/http-hop.cjs   # a fixed rate, as the read path runs
const { fork } = require('child_process');
const path = require('path');
if (process.argv[2] === 'server') {
  const http = require('http');
  const page = JSON.stringify({ data: { photos: { items: Array.from({ length: 32 }, (_, i) => ({ id: 'f0b8a1c2-1111-4444-8888-' + String(i).padStart(12, '0'), largeUrl: 'http://127.0.0.1:9000/media/public/1/large/' + i + '.jpg', thumbnailUrl: 'http://127.0.0.1:9000/media/public/1/thumb/' + i + '.jpg', width: 1600, height: 1200, originalUrl: null, meta: { photoTimestamp: 1780000000 + i, photographerName: 'Bench', originalFileName: 'IMG_' + i + '.jpg', source: 'bench', imagePath: 'originals/1/' + i + '.jpg', externalUrl: null } })), pageInfo: { total: 50000, currentPage: 3, totalPages: 1563, hasNextPage: true, hasPreviousPage: true, pageSize: 32 } } } }) + '\n';
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c)).on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(page) }).end(page);
    });
  });
  server.keepAliveTimeout = 65000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => { if (m === 'cpu') process.send({ cpu: process.cpuUsage() }); });
  return;
}
const { Pool } = require(require.resolve('undici', { paths: [path.join(__dirname, '../../../rest-adapter')] }));
(async () => {
  const child = fork(__filename, ['server']);
  const port = await new Promise((r) => child.once('message', (m) => r(m.port)));
  const cpuOf = () => new Promise((r) => { child.once('message', (m) => r(m.cpu)); child.send('cpu'); });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 64, pipelining: 1, keepAliveTimeout: 30000 });
  const body = JSON.stringify({ query: 'query Gallery($orgId: Int!, $eventId: Int!, $page: Int, $pageSize: Int) { photos(orgId: $orgId, eventId: $eventId, page: $page, pageSize: $pageSize) { items { id largeUrl thumbnailUrl width height originalUrl meta { photoTimestamp photographerName originalFileName source imagePath externalUrl } } pageInfo { total currentPage totalPages hasNextPage hasPreviousPage pageSize } } }', variables: { orgId: 1, eventId: 1, page: 3, pageSize: 32 } });
  const one = async () => { const r = await pool.request({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': 'k'.repeat(40), 'x-request-id': 'abc', 'x-forwarded-for': '127.0.0.1' }, body }); JSON.parse(await r.body.text()); };
  const RATE = Number(process.env.RATE || 0);
  const run = async (n) => {
    if (!RATE) { let left = n; await Promise.all(Array.from({ length: 64 }, async () => { while (left-- > 0) await one(); })); return; }
    const pending = []; const start = Date.now();
    for (let i = 0; i < n; i++) { const due = start + (i * 1000) / RATE; const wait = due - Date.now(); if (wait > 0) await new Promise((r) => setTimeout(r, wait)); pending.push(one()); }
    await Promise.all(pending);
  };
  await run(3000); // warm-up
  const N = Number(process.env.N || 20000);
  const c0 = process.cpuUsage(), s0 = await cpuOf(), t0 = Date.now();
  await run(N);
  const c1 = process.cpuUsage(c0), s1 = await cpuOf(), t1 = Date.now();
  const ms = (u) => ((u.user + u.system) / 1000 / N).toFixed(3);
  console.log(`requests ${N} in ${t1 - t0} ms; client ${ms(c1)} ms/req (user ${(c1.user/1000/N).toFixed(3)}), server ${ms({ user: s1.user - s0.user, system: s1.system - s0.system })} ms/req (user ${((s1.user-s0.user)/1000/N).toFixed(3)})`);
  await pool.close(); child.kill();
})();
