// Builds a browser page (the participant page, the dashboard) from its folder: one hashed JS bundle and one hashed
// stylesheet (served with a long cache), and index.html naming them. No inline script or style: the pages run under
// a strict CSP. Run from the page's folder (its build script): node <repo>/scripts/platform/build-page.mjs <path>,
// where <path> is the URL path the page's assets are served under (e.g. /events).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const servedAt = process.argv[2];
if (!servedAt?.startsWith('/')) throw new Error('usage: build-page.mjs <URL path the page is served under>');

const dist = path.resolve('dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(path.join(dist, 'assets'), { recursive: true });

const result = await build({
  entryPoints: { app: 'src/main.tsx' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome90', 'safari14', 'firefox90'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: path.join(dist, 'assets'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
const html = readFileSync('src/index.html', 'utf8')
  .replace('%APP_JS%', `${servedAt}/assets/${js}`)
  .replace('%APP_CSS%', `${servedAt}/assets/${css}`);
writeFileSync(path.join(dist, 'index.html'), html);
writeFileSync(path.join(dist, 'manifest.json'), JSON.stringify({ js, css }, null, 2));
