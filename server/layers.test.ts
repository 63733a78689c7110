import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The server's layers and the imports that must never happen between them, followed through
 * every module in between (lint's `noRestrictedImports` sees one file's own imports only: a
 * module of the API that imports a neutral module that imports the front breaks the rule just as
 * much). Data flows one way: the chain → the indexer → PostgreSQL → the API → the HTTP front.
 */
const root = path.resolve(import.meta.dirname, '..');

const layers = {
  front: 'server/http/',
  api: 'server/api/',
  indexer: 'server/indexer/',
  db: 'server/db/',
} as const;
type Layer = keyof typeof layers;

const nevers: [from: Layer, to: Layer][] = [
  ['api', 'front'],
  ['api', 'indexer'],
  ['indexer', 'front'],
  ['indexer', 'api'],
  ['db', 'front'],
  ['db', 'api'],
  ['db', 'indexer'],
];

const isProduction = (file: string) => !/(\.test\.tsx?$|^test\/)/.test(file);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const relative = path.join(dir, name);
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(name) && isProduction(relative) ? [relative] : [];
  });
}

/** What a module imports (static, dynamic and type-only alike), as project-relative files. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? '');
  return specifiers.flatMap((specifier) => {
    const base = specifier.startsWith('@/')
      ? path.join(root, specifier.slice(2))
      : specifier.startsWith('.')
        ? path.resolve(path.dirname(path.join(root, file)), specifier)
        : undefined;
    if (!base) return [];
    for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')])
      if (existsSync(candidate)) return [path.relative(root, candidate)];
    return [];
  });
}

const graph = new Map<string, string[]>();
const edges = (file: string) => {
  let found = graph.get(file);
  if (!found) {
    found = importsOf(file).filter(isProduction);
    graph.set(file, found);
  }
  return found;
};

/** The import chain from a module of `from` to a module of `to`, if there is one. */
function chain(from: Layer, to: Layer): string[] | undefined {
  const cameFrom = new Map<string, string | null>();
  const queue = sourceFiles(layers[from]);
  for (const file of queue) cameFrom.set(file, null);
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (file.startsWith(layers[to])) {
      const path: string[] = [];
      for (let at: string | null | undefined = file; at; at = cameFrom.get(at)) path.unshift(at);
      return path;
    }
    for (const next of edges(file)) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

describe('the server layers import one way, through any number of modules in between', () => {
  for (const [from, to] of nevers)
    it(`${from} (${layers[from]}) never reaches ${to} (${layers[to]})`, () => {
      const found = chain(from, to);
      expect(found, found?.join(' → ')).toBeUndefined();
    });
});
