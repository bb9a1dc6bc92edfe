import { REPO_ROOT } from '@em/core';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// core holds what two or more services need; code one service alone uses lives in that service.
// The bench and the tests do not count as users: they measure and check, they do not run the product.

const CORE_SRC = path.join(REPO_ROOT, 'core', 'src');
const NOT_USERS = ['core', path.join('scripts', 'bench'), 'test'];
/** The `@em/core` entries and the files they are. */
const ENTRIES: Record<string, string> = {
  '@em/core': 'index.ts',
  '@em/core/data': 'data.ts',
  '@em/core/migrate': 'migrate.ts',
  '@em/core/face-index': 'face-index.ts',
  '@em/core/storage': 'storage/index.ts',
  '@em/core/jobs': 'jobs/index.ts',
  '@em/core/media': 'media.ts',
  '@em/core/testing': 'testing.ts',
};
/**
 * Homes set by a rule, not by use: the in-memory fakes (tests only) and the repositories (every SQL
 * statement of a table lives in core/src/repositories, whichever service runs it).
 */
const RULE_HOMES = /^(testing\.ts|repositories\/|test-support\/)/;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) yield full;
  }
}

const parsed = new Map<string, ts.SourceFile>();
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source)
    parsed.set(file, (source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)));
  return source;
}

/** The file a relative specifier of `from` names (`./x` is x.ts or x/index.ts). */
function resolveRelative(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

const hasExport = (node: ts.Node) =>
  ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The core file that declares `name` as exported from `file`, following re-exports; null when none does. */
function declaringFile(file: string, name: string, seen = new Set<string>()): string | null {
  if (seen.has(file)) return null;
  seen.add(file);
  for (const statement of parse(file).statements) {
    if (ts.isExportDeclaration(statement)) {
      const target =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? resolveRelative(file, statement.moduleSpecifier.text)
          : null;
      if (!statement.exportClause) {
        const found = target && declaringFile(target, name, seen);
        if (found) return found;
      } else if (ts.isNamedExports(statement.exportClause)) {
        const element = statement.exportClause.elements.find((e) => e.name.text === name);
        if (element)
          return target ? declaringFile(target, (element.propertyName ?? element.name).text, new Set()) : file;
      }
    } else if (hasExport(statement)) {
      const names = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => (ts.isIdentifier(d.name) ? d.name.text : ''))
        : [(statement as ts.DeclarationStatement).name?.getText(parse(file))];
      if (names.includes(name)) return file;
    }
  }
  return null;
}

/** The core files `file` takes names from: through the `@em/core` entries, or (inside core) relatively. */
function coreFilesUsedBy(file: string): string[] {
  const used: string[] = [];
  for (const statement of parse(file).statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
    const specifier =
      statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : null;
    if (!specifier) continue;
    const entry = ENTRIES[specifier]
      ? path.join(CORE_SRC, ENTRIES[specifier])
      : file.startsWith(CORE_SRC) && specifier.startsWith('.')
        ? resolveRelative(file, specifier)
        : null;
    if (!entry) continue;
    const names: string[] = [];
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        names.push(...bindings.elements.map((e) => (e.propertyName ?? e.name).text));
      else used.push(entry);
    } else if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((e) => (e.propertyName ?? e.name).text));
    } else {
      used.push(entry);
    }
    for (const name of names) used.push(declaringFile(entry, name) ?? entry);
  }
  return used;
}

/** Per core file (relative to core/src), the workspaces that use it, directly or through other core files. */
function coreUsers(): Map<string, Set<string>> {
  const workspaces = readdirSync(REPO_ROOT)
    .flatMap((top) =>
      ['subgraphs', 'scripts'].includes(top)
        ? readdirSync(path.join(REPO_ROOT, top)).map((sub) => path.join(top, sub))
        : [top],
    )
    .filter(
      (dir) => existsSync(path.join(REPO_ROOT, dir, 'package.json')) && existsSync(path.join(REPO_ROOT, dir, 'src')),
    )
    .filter((dir) => !NOT_USERS.includes(dir));
  const users = new Map<string, Set<string>>();
  const add = (file: string, user: string) => {
    const key = path.relative(CORE_SRC, file);
    const set = users.get(key) ?? new Set<string>();
    const grew = !set.has(user);
    users.set(key, set.add(user));
    return grew;
  };
  for (const workspace of workspaces)
    for (const file of files(path.join(REPO_ROOT, workspace, 'src')))
      for (const used of coreFilesUsedBy(file)) add(used, workspace);
  // A core file is used by whoever uses a core file that uses it.
  const coreFiles = [...files(CORE_SRC)];
  for (let grew = true; grew;) {
    grew = false;
    for (const file of coreFiles) {
      const through = users.get(path.relative(CORE_SRC, file));
      if (!through) continue;
      for (const used of coreFilesUsedBy(file)) for (const user of through) grew = add(used, user) || grew;
    }
  }
  return users;
}

describe('what core holds', () => {
  const users = coreUsers();
  const isEntry = (key: string) => Object.values(ENTRIES).includes(key);

  it('finds the users it should (the check can fail)', () => {
    expect([...(users.get('errors.ts') ?? [])]).toEqual(
      expect.arrayContaining(['gateway', 'rest-adapter', 'ml-worker']),
    );
    expect([...(users.get('db/migrations/Migration20261122Initial.ts') ?? [])].length).toBeGreaterThanOrEqual(2);
  });

  it('every core module is used by two or more workspaces (the bench and tests not counted)', () => {
    const lonely = [...files(CORE_SRC)]
      .map((file) => path.relative(CORE_SRC, file))
      .filter((key) => !isEntry(key) && !RULE_HOMES.test(key) && (users.get(key)?.size ?? 0) < 2)
      .map((key) => `${key}: ${[...(users.get(key) ?? [])].join(', ') || 'nobody'}`);
    expect(lonely).toEqual([]);
  });
});
