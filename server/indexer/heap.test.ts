import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INDEXER_NODE_FLAGS } from './heap';

const root = path.resolve(import.meta.dirname, '../..');
const scripts = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

describe('indexer node flags', () => {
  it.each(['indexer', 'bench:indexer'])('npm run %s runs node with the indexer heap flags', (name) => {
    const command = scripts[name] ?? '';
    const flags = command
      .match(/^node((?: --[a-z-]+=\S+)*) (?:--import tsx |dist\/)/)?.[1]
      ?.trim()
      .split(' ');
    expect(flags).toEqual([...INDEXER_NODE_FLAGS]);
  });
});
