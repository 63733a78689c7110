import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { type BinaryField, copyBinaryIn, encodeBinaryCopy } from './binary-copy';
import { copyLines } from './bulk';
import { type Database, type DatabaseHandle, selectRows } from './client';

const backends = await availableBackends();

/** Lines 0..count-1, then `tail` (a duplicate key or a bad value) as the last line. */
function linesEndingWith(count: number, tail: string): string[] {
  return [...Array.from({ length: count }, (_, i) => `${i}\tvalue ${i}`), tail];
}

async function rowCount(db: Database): Promise<number> {
  const [row] = await selectRows<{ n: number }>(db, sql`select count(*)::int as n from copy_target`);
  return row?.n ?? -1;
}

/** Fails the test instead of hanging it: a lost COPY error used to leave the promise pending. */
function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe.each(backends)('COPY into a table (%s)', (backend) => {
  let handle: DatabaseHandle;

  testDatabaseForTests(backend, async (opened) => {
    handle = opened.handle;
    await handle.exec('create table copy_target (id integer primary key, label text not null)');
  });

  it('appends every line, also over several chunks and blocks of joined lines', async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `${i}\tvalue ${i}\\twith tab`);
    // Two elements that each hold several lines joined by newlines, as the fold hands them over.
    const blocks = ['60000\ta\n60001\tb', '60002\tc\n60003\td\n60004\te'];
    await handle.db.transaction(async (tx) => {
      await copyLines(tx as unknown as Database, 'copy_target', ['id', 'label'], [...lines, ...blocks]);
    });
    expect(await rowCount(handle.db)).toBe(60_005);
    const [row] = await selectRows<{ label: string }>(
      handle.db,
      sql`select label from copy_target where id = 7`,
    );
    expect(row?.label).toBe('value 7\twith tab');
    await handle.exec('truncate copy_target');
  });

  // The server finds these only once it has the last line: after the client ended its stream.
  it.each([
    ['a duplicate key in a small COPY', 10, '3\tagain', /duplicate key value violates unique constraint/],
    [
      'a duplicate key after 200k rows',
      200_000,
      '199999\tagain',
      /duplicate key value violates unique constraint/,
    ],
    ['a value of the wrong type', 10, 'eleven\tx', /invalid input syntax for type integer/],
  ])('rejects %s with the server error and rolls the transaction back', async (_, count, tail, message) => {
    const write = handle.db.transaction(async (tx) => {
      await copyLines(
        tx as unknown as Database,
        'copy_target',
        ['id', 'label'],
        linesEndingWith(count, tail),
      );
    });
    await expect(settlesWithin(write, 30_000)).rejects.toThrow(message);
    expect(await rowCount(handle.db)).toBe(0);
    if (backend === 'postgres') {
      // The rollback was sent: no session of this database is left in an aborted transaction.
      const stuck = await selectRows<{ state: string }>(
        handle.db,
        sql`select state from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
      );
      expect(stuck).toEqual([]);
    }
  });

  it('leaves the pool usable after a refused COPY', async () => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const write = handle.db.transaction(async (tx) => {
        await copyLines(
          tx as unknown as Database,
          'copy_target',
          ['id', 'label'],
          linesEndingWith(5, '0\tagain'),
        );
      });
      await expect(settlesWithin(write, 30_000)).rejects.toThrow(/duplicate key/);
    }
    await handle.db.transaction(async (tx) => {
      await copyLines(tx as unknown as Database, 'copy_target', ['id', 'label'], ['1\tone', '2\ttwo']);
    });
    expect(await rowCount(handle.db)).toBe(2);
  });
});

describe.each(backends)('binary COPY into a table (%s)', (backend) => {
  let handle: DatabaseHandle;

  testDatabaseForTests(backend, async (opened) => {
    handle = opened.handle;
    await handle.exec(
      'create table copy_bytes (id bigint primary key, n integer not null, body bytea not null)',
    );
  });

  const copyRows = (rows: BinaryField[][]) =>
    handle.db.transaction(async (tx) => {
      await copyBinaryIn(
        tx as unknown as Database,
        'copy_bytes',
        ['id', 'n', 'body'],
        encodeBinaryCopy(rows),
      );
    });

  it('writes bytes, integers and bigints as they are; a duplicate key fails the transaction', async () => {
    // One body over the 1 MiB slices the stream is written in.
    const bodies = [
      Buffer.alloc(0),
      Buffer.from([0, 255, 10, 13, 92, 9]),
      Buffer.alloc(3 * 2 ** 19 + 7, 0xab),
    ];
    const rows = bodies.map((body, i) => [{ int8: 2 ** 40 + i }, { int4: -1 - i }, { bytes: body }]);
    await copyRows(rows);
    const out = await selectRows<{ id: string; n: number; body: string }>(
      handle.db,
      sql`select id::text, n, encode(body, 'base64') as body from copy_bytes order by id`,
    );
    expect(out.map(({ id, n }) => [BigInt(id), n])).toEqual(
      bodies.map((_, i) => [BigInt(2 ** 40 + i), -1 - i]),
    );
    expect(out.map(({ body }, i) => Buffer.from(body, 'base64').equals(bodies[i] as Buffer))).toEqual([
      true,
      true,
      true,
    ]);
    for (const duplicate of [rows.slice(1), rows.slice(0, 1)])
      await expect(settlesWithin(copyRows(duplicate), 30_000)).rejects.toThrow(/duplicate key/);
    const [count] = await selectRows<{ n: number }>(
      handle.db,
      sql`select count(*)::int as n from copy_bytes`,
    );
    expect(count?.n).toBe(3);
  });
});
