import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import { projectionTables, rebuildScratchTables } from '../../db/projection-tables';

/**
 * The schema a rebuild writes into: empty copies of the live projection tables (and of the
 * tables the indexer writes beside them), made from the live tables' own definitions, so they
 * are exactly what the migrations made, names of keys and indexes included (later migrations
 * and the deferred indexes name them).
 */

/** The schema a rebuild builds in, and the one the replaced tables go to when it is swapped in. */
export const REBUILD_SCHEMA = 'launchdex_rebuild';
export const RETIRED_SCHEMA = 'launchdex_retired';

/** Every table a rebuild copies, projections first. */
export const rebuiltTables: readonly string[] = [...projectionTables, ...rebuildScratchTables];

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const qualified = (schema: string, table: string) => `${quote(schema)}.${quote(table)}`;

/** Whether `schema` exists, and the mark it was made with (see createRebuildSchema). */
export async function readSchemaMark(db: Database, schema: string): Promise<string | null | undefined> {
  const [row] = await selectRows<{ mark: string | null }>(
    db,
    sql`select obj_description(oid, 'pg_namespace') as mark from pg_namespace where nspname = ${schema}`,
  );
  return row === undefined ? undefined : row.mark;
}

/**
 * Makes `target` with an empty copy of each of the live schema's rebuilt tables, in one
 * transaction (a kill leaves the schema whole or absent). `mark` is kept as the schema's
 * comment: a rebuild resumes in a schema only if it was made for the same migrations.
 */
export async function createRebuildSchema(db: Database, live: string, target: string, mark: string) {
  await db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    await t.execute(sql.raw(`create schema ${quote(target)}`));
    await t.execute(sql.raw(`comment on schema ${quote(target)} is '${mark.replaceAll("'", "''")}'`));
    for (const table of rebuiltTables) await copyTable(t, live, target, table);
    // Foreign keys between copied tables, printed while the live schema is the path (so the
    // referenced table is unqualified) and added while the target is (so it is the copy).
    const keys = await selectRows<{ table_name: string; name: string; definition: string }>(
      t,
      sql`select c.relname as table_name, k.conname as name, pg_get_constraintdef(k.oid) as definition
            from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
            join pg_class f on f.oid = k.confrelid
           where k.contype = 'f' and n.nspname = ${live} and c.relname = any(${textArray(rebuiltTables)})
             and f.relname = any(${textArray(rebuiltTables)}) and f.relnamespace = n.oid`,
    );
    await t.execute(sql.raw(`set local search_path to ${quote(target)}`));
    for (const key of keys)
      await t.execute(
        sql.raw(`alter table ${quote(key.table_name)} add constraint ${quote(key.name)} ${key.definition}`),
      );
  });
}

/** An empty copy of `live`.`table` in `target`: columns, defaults, keys, indexes, partitioning. */
async function copyTable(t: Database, live: string, target: string, table: string) {
  const [relation] = await selectRows<{ oid: number; partition_key: string | null }>(
    t,
    sql`select c.oid, pg_get_partkeydef(c.oid) as partition_key
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = ${live} and c.relname = ${table}`,
  );
  if (!relation) throw new Error(`no table ${live}.${table} to rebuild`);
  const copy = qualified(target, table);
  await t.execute(
    sql.raw(
      `create table ${copy} (like ${qualified(live, table)} including defaults including constraints including identity including generated including storage including compression)${relation.partition_key ? ` partition by ${relation.partition_key}` : ''}`,
    ),
  );
  // Keys keep their names (and so do the indexes that back them).
  const constraints = await selectRows<{ name: string; definition: string }>(
    t,
    sql`select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
         where conrelid = ${relation.oid} and contype in ('p', 'u', 'x') order by conname`,
  );
  for (const c of constraints)
    await t.execute(sql.raw(`alter table ${copy} add constraint ${quote(c.name)} ${c.definition}`));
  // The live table's indexes, and those its own backfill dropped for now (deferred_indexes).
  const indexes = await selectRows<{ definition: string }>(
    t,
    sql`select pg_get_indexdef(i.indexrelid) as definition from pg_index i
         where i.indrelid = ${relation.oid}
           and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.conrelid = i.indrelid)
        union all
        select definition from ${sql.raw(qualified(live, 'deferred_indexes'))} where table_name = ${table}`,
  );
  for (const { definition } of indexes) {
    // "CREATE INDEX name ON [ONLY] live.table USING …": the same index on the copy (whole: it has no partitions yet).
    const onCopy = definition.replace(/ ON (?:ONLY )?\S+ USING /, ` ON ${copy} USING `);
    if (onCopy === definition) throw new Error(`cannot read the index definition ${definition}`);
    await t.execute(sql.raw(onCopy));
  }
  // A serial column's default still names the live table's sequence: give the copy its own.
  const serials = await selectRows<{ column_name: string; sequence: string }>(
    t,
    sql`select a.attname as column_name, s.relname as sequence
          from pg_depend d join pg_class s on s.oid = d.objid and s.relkind = 'S'
          join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
         where d.refobjid = ${relation.oid} and d.deptype = 'a'`,
  );
  for (const serial of serials) {
    const sequence = qualified(target, serial.sequence);
    await t.execute(sql.raw(`create sequence ${sequence} owned by ${copy}.${quote(serial.column_name)}`));
    await t.execute(
      sql.raw(
        `alter table ${copy} alter column ${quote(serial.column_name)} set default nextval('${sequence.replaceAll("'", "''")}')`,
      ),
    );
  }
}

/** Drops `schema` and everything in it, if it exists. */
export async function dropSchema(db: Database, schema: string) {
  await db.execute(sql.raw(`drop schema if exists ${quote(schema)} cascade`));
}
