import { REPO_ROOT } from '@em/core';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (/\.(ts|js)$/.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

describe('package boundaries', () => {
  it("no package imports another package's dist/ internals: each is used through its library entry", () => {
    const offenders: string[] = [];
    for (const file of sources(REPO_ROOT)) {
      for (const [line] of readFileSync(file, 'utf8').matchAll(/.*(from\s+|require\()['"]@em\/[^'"]*\/dist\/.*/g)) offenders.push(`${path.relative(REPO_ROOT, file)}: ${line.trim()}`);
    }
    expect(offenders).toEqual([]);
  });
});
