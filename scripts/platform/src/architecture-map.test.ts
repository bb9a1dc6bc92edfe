import { REPO_ROOT } from '@em/core';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** `a/{b,c}/d` as `a/b/d` and `a/c/d`. */
function expandBraces(text: string): string[] {
  const match = /\{([^{}]*)\}/.exec(text);
  if (!match) return [text];
  return match[1]
    .split(',')
    .flatMap((part) => expandBraces(text.slice(0, match.index) + part + text.slice(match.index + match[0].length)));
}

/** The repository paths a markdown text names in backticks: those starting at a top-level folder or file. */
function namedPaths(markdown: string, topLevel: ReadonlySet<string>): string[] {
  const paths = new Set<string>();
  for (const [, code] of markdown.matchAll(/`([^`\s]+)`/g)) {
    for (const candidate of expandBraces(code)) {
      const first = candidate.split('/')[0];
      if (candidate.includes('/') && topLevel.has(first) && !/[*<>]/.test(candidate))
        paths.add(candidate.replace(/\/$/, ''));
    }
  }
  return [...paths];
}

describe('ARCHITECTURE.md', () => {
  const topLevel = new Set(readdirSync(REPO_ROOT).filter((name) => name !== 'node_modules'));
  const named = namedPaths(readFileSync(path.join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8'), topLevel);

  it('reads the paths it names, braces expanded', () => {
    expect(namedPaths('`core/src/{a,b}.ts` `src/x.ts` `nope/x` `docs/`', new Set(['core', 'docs']))).toEqual([
      'core/src/a.ts',
      'core/src/b.ts',
      'docs',
    ]);
    expect(named.length).toBeGreaterThan(40);
  });

  it('names only paths that exist', () => {
    expect(named.filter((name) => !existsSync(path.join(REPO_ROOT, name)))).toEqual([]);
  });

  it('maps every top-level folder', () => {
    const folders = readdirSync(REPO_ROOT, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !['node_modules', '.git', '.turbo', '.data'].includes(entry.name))
      .map((entry) => entry.name);
    const map = readFileSync(path.join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8').split('### Where a rule lives')[0];
    expect(folders.filter((folder) => !map.includes(`| \`${folder}/`))).toEqual([]);
  });
});
