import { build } from 'esbuild';
import path from 'node:path';
const dist = path.resolve(process.argv[2]); const target = process.argv[3];
const r = await build({ entryPoints: [path.join(dist, 'main.js')], outfile: '/tmp/x.bundle.js', bundle: true, platform: 'node', target: 'node20', format: 'cjs', metafile: true, write: false,
 external: ['sharp','usearch','msgpackr-extract','pg-native','pg-query-stream','better-sqlite3','sqlite3','libsql','mysql','mysql2','mariadb','oracledb','tedious','swagger-ui-dist','class-validator','@em/core/package.json','@em/web/package.json','@em/dashboard/package.json'], logLevel: 'error' });
const importers = {};
for (const [file, info] of Object.entries(r.metafile.inputs)) for (const imp of info.imports) (importers[imp.path] ||= []).push(file);
// walk up from first file of target package
const start = Object.keys(r.metafile.inputs).filter((f) => f.includes(`node_modules/${target}/`));
const seen = new Set(); let frontier = start; const pkgOf = (f) => { const m = f.match(/node_modules\/((@[^/]+\/)?[^/]+)\/(?!.*node_modules)/); return m ? m[1] : f; };
const chain = new Set();
for (let d = 0; d < 12 && frontier.length; d++) { const next = []; for (const f of frontier) for (const i of importers[f] || []) if (!seen.has(i)) { seen.add(i); next.push(i); if (pkgOf(i) !== target) chain.add(`${d}: ${pkgOf(i)}`); } frontier = next; }
console.log([...chain].slice(0, 30).join('\n'));
