// Bundles a service's compiled entry (dist/main.js) into one file, dist/main.bundle.js, with its
// source map: a start resolves and reads one file instead of thousands (see docs/operations.md).
// Run from a service's folder after tsc (its build script): node <repo>/scripts/platform/bundle-service.mjs [dist].
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Native addons and packages that find files next to their own sources at run time stay in node_modules;
// the knex dialects of databases the platform does not use are never loaded.
const EXTERNAL = [
  'sharp',
  'usearch',
  'msgpackr-extract',
  'pg-native',
  'pg-query-stream',
  'better-sqlite3',
  'sqlite3',
  'libsql',
  'mysql',
  'mysql2',
  'mariadb',
  'oracledb',
  'tedious',
  // Finds its browser assets beside its own file (getAbsoluteFSPath).
  'swagger-ui-dist',
  // Required by type-graphql only when argument validation is on (it is off): 1 MB never parsed at start.
  'class-validator',
  // Found at run time, where the package is installed (the participant page's and dashboard's files, the repo root).
  '@em/core/package.json',
  '@em/web/package.json',
  '@em/dashboard/package.json',
];

// The Apollo gateway's data collection (metrics sent to Apollo, cloud metadata probed at start): off in every
// service (APOLLO_TELEMETRY_DISABLED, set by the gateway's main), so its 3.7 MB of modules are never parsed at
// start. A module stub stands in: reading a constant gives a function that throws if ever called.
const UNUSED =
  /^@opentelemetry\/(resource-detector-[a-z-]+|exporter-metrics-otlp-http|sdk-metrics|resources|semantic-conventions\/incubating)$/;
const unusedStub = {
  name: 'unused-stub',
  setup(b) {
    b.onResolve({ filter: UNUSED }, (args) => ({ path: args.path, namespace: 'unused-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'unused-stub' }, (args) => ({
      contents: `const fail = () => { throw new Error(${JSON.stringify(`${args.path} is not bundled (Apollo telemetry is off)`)}); };
module.exports = new Proxy({}, { get: (_, name) => (name === '__esModule' ? false : fail) });`,
      loader: 'js',
    }));
  },
};

// Apollo's hash helper asks `module.require` for Node's crypto, which a bundled module lacks, and so falls back
// to a pure-JavaScript SHA (the supergraph's id at start, every operation's hash): Node's crypto stands in.
const nodeCryptoHash = {
  name: 'node-crypto-hash',
  setup(b) {
    b.onResolve({ filter: /^@apollo\/utils\.createhash$/ }, (args) => ({
      path: args.path,
      namespace: 'node-crypto-hash',
    }));
    b.onLoad({ filter: /.*/, namespace: 'node-crypto-hash' }, () => ({
      contents: `const { createHash } = require('node:crypto');
module.exports = { createHash: (kind) => createHash(kind) };`,
      loader: 'js',
    }));
  },
};

const dist = path.resolve(process.argv[2] ?? 'dist');
const outfile = path.join(dist, 'main.bundle.js');
const result = await build({
  entryPoints: [path.join(dist, 'main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Comments and indentation out (a third of the bytes every start reads and parses); names kept and lines cut at
  // 200 characters, so a stack trace's function and line still read. The map is for --enable-source-maps when
  // needed (off by default: Node decodes it at start, ~2 s of CPU per service).
  minifyWhitespace: true,
  lineLimit: 200,
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  external: EXTERNAL,
  plugins: [unusedStub, nodeCryptoHash],
  logLevel: 'warning',
});

// esbuild escapes strings and names but leaves regular expressions' non-ASCII characters as they are: one of them
// makes V8 hold the whole file as a two-byte string (twice the memory, slower to decode and parse). In a regular
// expression (and a comment) \uXXXX stands for the same UTF-16 unit.
const code = readFileSync(outfile, 'utf8');
if (/[^\x00-\x7f]/.test(code))
  writeFileSync(
    outfile,
    code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
// What each package adds to the bundle, for esbuild's bundle analyzer (https://esbuild.github.io/analyze/).
writeFileSync(path.join(dist, 'main.bundle.meta.json'), JSON.stringify(result.metafile));
