import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../server/db/client';
import { createDraft } from '../server/metadata/create-draft';
import { createFilesystemStore } from '../server/objects/store';
import { productionScriptEnv } from '../test/child-process';
import { availableBackends, createTestDatabase, type TestDatabase } from '../test/database';

const backends = await availableBackends();
const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

describe.each(backends)('npm run purge-drafts (%s)', (backend) => {
  let database: TestDatabase;
  const objectsDir = mkdtempSync(path.join(tmpdir(), 'launchdex-purge-command-'));
  const drafts: Record<'expired' | 'sharedExpired' | 'sharedFresh', { id: string; key: string }> =
    {} as never;

  const purgeDrafts = async (...args: string[]) => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'scripts', 'purge-drafts.ts'), ...args],
      {
        cwd: root,
        env: productionScriptEnv({ LOG_LEVEL: 'silent', OBJECTS_DIR: objectsDir, ...database.env }),
      },
    );
    return stdout;
  };
  const remaining = async () => {
    const handle = await database.open();
    try {
      return (
        await selectRows<{ id: string }>(handle.db, sql`select id from metadata_drafts order by id`)
      ).map((row) => row.id);
    } finally {
      await handle.close();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const handle = await database.open();
    const store = createFilesystemStore(objectsDir);
    const png = (background: string) =>
      sharp({ create: { width: 8, height: 8, channels: 3, background } })
        .png()
        .toBuffer();
    const make = async (bytes: Buffer) => {
      const draft = await createDraft(
        { db: handle.db, objects: store, fetchImage: async () => Buffer.alloc(0) },
        {
          fields: { name: 'Command', symbol: 'CMD', initial_supply: (10n ** 27n).toString() },
          file: { bytes: new Uint8Array(bytes), filename: 'a.png' },
        },
      );
      return { id: draft.draft_id, key: draft.image_url.slice('/objects/'.length) };
    };
    const shared = await png('#123456');
    drafts.expired = await make(await png('#654321'));
    drafts.sharedExpired = await make(shared);
    drafts.sharedFresh = await make(shared);
    await handle.db.execute(
      sql`update metadata_drafts set created_at = now() - interval '30 hours' where id in (${drafts.expired.id}, ${drafts.sharedExpired.id})`,
    );
    // PGlite admits one process: the command opens the database after this handle is closed.
    await handle.close();
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
    rmSync(objectsDir, { recursive: true, force: true });
  });

  it('--dry-run reports what it would delete and deletes nothing', async () => {
    const output = await purgeDrafts('--dry-run');
    expect(output).toMatch(
      /^dry run: would delete 2 drafts unbound for more than 24 h and 1 objects \(0\.0 MB\) no other draft uses; 1 objects stay \(another draft uses them\)$/m,
    );
    expect(await remaining()).toHaveLength(3);
    expect(existsSync(path.join(objectsDir, drafts.expired.key))).toBe(true);
  });

  it('deletes the expired drafts and the objects no other draft uses, reporting its progress', async () => {
    const output = await purgeDrafts();
    expect(output).toMatch(/^deleting drafts unbound for more than 24 h$/m);
    expect(output).toMatch(/^ {2}2 drafts, 1 objects \(0\.0 MB\) so far$/m);
    expect(output).toMatch(/^deleted 2 drafts and 1 objects \(0\.0 MB\); 1 objects stay/m);
    expect(await remaining()).toEqual([drafts.sharedFresh.id]);
    expect(existsSync(path.join(objectsDir, drafts.expired.key))).toBe(false);
    expect(existsSync(path.join(objectsDir, drafts.sharedFresh.key))).toBe(true);
    // Nothing left to do: a second run deletes nothing.
    expect(await purgeDrafts()).toMatch(/^deleted 0 drafts and 0 objects/m);
  });
});
