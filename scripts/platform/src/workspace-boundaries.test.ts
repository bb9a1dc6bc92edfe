import { REPO_ROOT } from '@em/core';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every source file of the repository: TypeScript and JavaScript of any module kind. */
function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (/\.(ts|tsx|js|cjs|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

/** The folder of each workspace (a folder holding a package.json), longest first. */
function packageRoots(): string[] {
  const roots: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const full = path.join(dir, name);
      if (!statSync(full).isDirectory()) continue;
      if (readdirSync(full).includes('package.json')) roots.push(full);
      walk(full);
    }
  };
  walk(REPO_ROOT);
  return roots.sort((a, b) => b.length - a.length);
}

const SPECIFIER = /(?:from\s+|require\(\s*|import\(\s*)['"]([^'"]+)['"]/g;

const packageOf = (roots: string[], file: string) =>
  roots.find((root) => file.startsWith(root + path.sep)) ?? REPO_ROOT;

/** The imports of `file` that reach into another package's dist/ or src/ instead of its entry. */
function boundaryOffences(roots: string[], file: string, text: string): string[] {
  const offences: string[] = [];
  const own = packageOf(roots, file);
  for (const [, specifier] of text.matchAll(SPECIFIER)) {
    if (/^@em\/[^/]+\/(dist|src)(\/|$)/.test(specifier)) offences.push(specifier);
    if (!specifier.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), specifier);
    const targetPackage = packageOf(roots, target);
    const inside = path.relative(targetPackage, target).split(path.sep)[0];
    if (targetPackage !== own && (inside === 'src' || inside === 'dist')) offences.push(specifier);
  }
  return offences;
}

describe('package boundaries', () => {
  const roots = packageRoots();
  const files = [...sources(REPO_ROOT)];

  it('reads every kind of source file (.ts .tsx .js .cjs .mjs)', () => {
    const kinds = new Set(files.map((f) => path.extname(f)));
    for (const kind of ['.ts', '.tsx', '.js', '.mjs']) expect(kinds).toContain(kind);
    expect(files).toContain(path.join(REPO_ROOT, 'scripts', 'platform', 'src', 'workspace-boundaries.test.ts'));
  });

  it('catches a package entry bypassed by name or by a relative path, in any module syntax', () => {
    const file = path.join(REPO_ROOT, 'scripts', 'bench', 'src', 'x.cjs');
    const text = [
      "const a = require('@em/ml-worker/dist/faces/face-chip');",
      "import b from '../../../core/src/media';",
      "const c = await import('../../../ml-worker/dist/index.js');",
      "const ok = require('@em/ml-worker'); import own from './table'; import d from '../../platform/src/index';",
    ].join('\n');
    expect(boundaryOffences(roots, file, text)).toEqual([
      '@em/ml-worker/dist/faces/face-chip',
      '../../../core/src/media',
      '../../../ml-worker/dist/index.js',
      '../../platform/src/index',
    ]);
  });

  it("no package imports another package's dist/ or src/: each is used through its library entry", () => {
    const offenders: string[] = [];
    // This file's own examples above are offences on purpose.
    for (const file of files.filter((f) => f !== __filename)) {
      const offences = boundaryOffences(roots, file, readFileSync(file, 'utf8'));
      offenders.push(...offences.map((specifier) => `${path.relative(REPO_ROOT, file)}: ${specifier}`));
    }
    expect(offenders).toEqual([]);
  });
});
