import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { fixtureHash, fixtureToken, insertTokens, setCheckpoint } from '../../test/fixtures';
import { indexedThroughBlockColumn } from './checkpoint';
import type { Database, DatabaseHandle } from './client';
import { executePrepared } from './prepared';
import { metadataDrafts, tokens } from './schema';

const backends = await availableBackends();

/** Every kind of field a read selects: nested table columns, a left-joined table, SQL with a decoder. */
function build(db: Database, name: string) {
  return db
    .select({
      token: { address: tokens.address, createdAt: tokens.createdAt, supply: tokens.totalSupply },
      draft: {
        name: metadataDrafts.name,
        imageKey: metadataDrafts.imageKey,
        createdAt: metadataDrafts.createdAt,
        websiteUrl: metadataDrafts.websiteUrl,
      },
      imageKey: metadataDrafts.imageKey,
      doubled: sql<number>`${tokens.holders} * 2`.mapWith(Number),
      ib: indexedThroughBlockColumn,
    })
    .from(tokens)
    .leftJoin(metadataDrafts, eq(metadataDrafts.id, tokens.draftId))
    .where(eq(tokens.creator, sql.placeholder('creator')))
    .orderBy(tokens.address)
    .prepare(name);
}

describe.each(backends)('executePrepared maps rows as drizzle does (%s)', (backend) => {
  let handle: DatabaseHandle;

  testDatabaseForTests(backend, async (opened) => {
    handle = opened.handle;
    const rows = Array.from({ length: 9 }, (_, i) => fixtureToken(i + 1));
    await handle.db.insert(metadataDrafts).values({
      id: 'draft-bound',
      name: 'Bound',
      symbol: 'BND',
      initialSupply: 10n ** 27n,
      imageKey: 'sha256/abc',
      metadataHash: fixtureHash('metadata', 1),
      websiteUrl: null,
    });
    rows[0] = { ...(rows[0] as (typeof rows)[number]), draftId: 'draft-bound' };
    await insertTokens(handle.db, rows);
    await setCheckpoint(handle.db, 321);
  });

  it('equals drizzle’s own execute: nested objects, a left join present and absent, decoders, nulls', async () => {
    const creator = fixtureToken(1).creator;
    const statement = build(handle.db, 'prepared_equivalence');
    const fast = await executePrepared(statement, { creator });
    const drizzle = await statement.execute({ creator });
    expect(fast).toEqual(drizzle);
    expect(fast.length).toBe(3);
    const bound = fast.find((row) => row.imageKey !== null);
    // A left-joined table with a row: its object, with a Date from the timestamp column.
    expect(bound?.draft).toMatchObject({ name: 'Bound', imageKey: 'sha256/abc', websiteUrl: null });
    expect(bound?.draft?.createdAt).toBeInstanceOf(Date);
    // Without one: the whole object is null, as drizzle makes it.
    expect(fast.filter((row) => row.draft === null).length).toBe(2);
    for (const row of fast) {
      expect(typeof row.token.supply).toBe('bigint');
      expect(row.ib).toBe(321);
      expect(typeof row.doubled).toBe('number');
    }
    // A second run goes through the plan kept for the statement.
    expect(await executePrepared(statement, { creator })).toEqual(drizzle);
    expect(
      await executePrepared(statement, { creator: '0x0000000000000000000000000000000000000000' }),
    ).toEqual([]);
  });
});
