import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AppServer, startAppServer } from '../../../test/app-server';
import { expectedRecord, openExport, parseCsv, walkJson } from '../../../test/csv';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import { seedListedToken, setExportCheckpoint } from '../../../test/export-fixtures';
import { type DatabaseHandle, selectRows } from '../../db/client';
import { holdersExport, tradesExport } from '../routers/tokens/serialized';
import type { Context } from '../trpc';
import { csvSql } from './csv-sql';
import { ExportCut } from './export';

const backends = await availableBackends();

/** Trades, holders and traders of the fixture token: more than two chunks of each. */
const LISTED_ROWS = 4_321;
const csvType = 'text/csv; charset=utf-8';

/**
 * CSV exports (docs/api.md, "CSV exports") on both backends: the quoting of fields, the check an
 * export makes where it cannot hold a snapshot, and over HTTP the export of trades, holders and
 * traders against the JSON walk of the same lists, row for row, with the request rules around it.
 * Limits, budgets, disconnects and the million-row export: csv-export-limits.int.test.ts.
 */
describe.each(backends)('CSV exports (%s)', (backend) => {
  let database: TestDatabase;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const handle = await database.open();
    try {
      token = await seedListedToken(handle.db, 1, LISTED_ROWS, 1_000);
      await setExportCheckpoint(handle.db);
    } finally {
      await handle.close();
    }
  }, 300_000);
  afterAll(async () => {
    await database?.drop();
  });

  // PGlite admits one process: these run before the server opens it.
  describe('in the database', () => {
    let handle: DatabaseHandle;
    beforeAll(async () => {
      handle = await database.open();
    });
    afterAll(async () => {
      await handle?.close();
    });

    it('quotes a field as RFC 4180 asks: when it holds a quote, comma, CR or LF, or is empty; null is an empty field', async () => {
      const schema = z.object({
        text: z.string(),
        note: z.string().nullable(),
        tags: z.array(z.string()),
        n: z.number(),
      });
      const line = csvSql(schema, { text: 'v.text', note: 'v.note', tags: 'v.tags', n: 'v.n' });
      const cases: [string, string | null, string[], string][] = [
        ['plain', 'x', [], 'plain,x,[],7\r\n'],
        ['a,b', null, ['creator'], '"a,b",,"[""creator""]",7\r\n'],
        ['say "hi"', '', ['a', 'b'], '"say ""hi""","","[""a"",""b""]",7\r\n'],
        ['"', '""', [','], '"""","""""","["",""]",7\r\n'],
        ['line\nbreak', 'cr\rhere', [], '"line\nbreak","cr\rhere",[],7\r\n'],
        ['crlf\r\nend', ' padded ', [], '"crlf\r\nend", padded ,[],7\r\n'],
        ['é 🚀 \u2028 tab\t', '=1+1', [], 'é 🚀 \u2028 tab\t,=1+1,[],7\r\n'],
      ];
      for (const [text, note, tags, expected] of cases) {
        const [row] = await selectRows<{ line: string }>(
          handle.db,
          sql`select ${line} as line from (select ${text}::text as text, ${note}::text as note,
                ${JSON.stringify(tags)}::text as tags, 7 as n) v`,
        );
        expect(row?.line, JSON.stringify(text)).toBe(expected);
        expect(parseCsv(expected)).toEqual([[text, note ?? '', JSON.stringify(tags), '7']]);
      }
    });

    it('an export that cannot hold a snapshot (PGlite) is cut when the index moved under its rows', async () => {
      // Without a session of its own the list checks index_changes on every chunk (token-exports.ts).
      const ctx = { cursorSecret: 'export-test-secret-0123456789' } as Context;
      const input = { address: token, limit: 20 };
      const rows = { limit: 1_000_000, first: 100 };
      const trades = await tradesExport.head(ctx, handle.db, input, rows);
      const holders = await holdersExport.head(ctx, handle.db, input, rows);
      expect(trades.rows).toBe(LISTED_ROWS);
      expect(trades.first.rows).toBe(100);
      const at = (head: typeof trades) => ({
        after: head.first.last ?? ['', ''],
        block: head.block,
        seq: head.seq,
      });
      const log = (seq: number, kind: string, to: number) =>
        handle.db.execute(sql`insert into index_changes (seq, kind, from_block, to_block, block_hash)
          values (${seq}, ${kind}, ${to}, ${to}, null)`);
      try {
        expect((await tradesExport.chunk(handle.db, input, at(trades), 100)).rows).toBe(100);
        // A block indexed past the export's: trades behind its cursor stay, balances may have moved.
        await log(trades.seq + 1, 'advance', trades.block + 1);
        expect((await tradesExport.chunk(handle.db, input, at(trades), 100)).rows).toBe(100);
        await expect(holdersExport.chunk(handle.db, input, at(holders), 100)).rejects.toEqual(
          new ExportCut('index_moved'),
        );
        // A rollback that kept the export's block leaves its trades; one below it does not.
        await log(trades.seq + 2, 'rollback', trades.block);
        expect((await tradesExport.chunk(handle.db, input, at(trades), 100)).rows).toBe(100);
        await log(trades.seq + 3, 'rollback', trades.block - 1);
        await expect(tradesExport.chunk(handle.db, input, at(trades), 100)).rejects.toBeInstanceOf(ExportCut);
      } finally {
        await handle.db.execute(sql`delete from index_changes where seq > ${trades.seq}`);
      }
    });
  });

  describe('served', () => {
    let server: AppServer;
    let base: string;
    beforeAll(async () => {
      server = await startAppServer(database.env);
      base = server.baseUrl;
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    });

    const lists = ['trades', 'holders', 'traders', 'traders?sort=volume', 'traders?sort=holding'];

    it('each list exported is its JSON walk, row for row and field for field, from one snapshot', async () => {
      for (const list of lists) {
        const path = `/api/v1/tokens/${token}/${list}`;
        const items = await walkJson(base, path);
        const response = await fetch(`${base}${path}${list.includes('?') ? '&' : '?'}format=csv`);
        expect(response.status, list).toBe(200);
        expect(response.headers.get('content-type')).toBe(csvType);
        const name = list.split('?')[0];
        expect(response.headers.get('content-disposition')).toBe(
          `attachment; filename="${name}-${token}-4000000.csv"`,
        );
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('vary')).toBe('accept');
        expect(response.headers.get('x-indexed-through-block')).toBe('4000000');
        expect(response.headers.get('x-export-rows')).toBe(String(items.length));
        expect(response.headers.get('x-export-truncated')).toBeNull();
        const [header = [], ...records] = parseCsv(await response.text());
        expect(header).toEqual(Object.keys(items[0] ?? {}));
        expect(records.length, list).toBe(items.length);
        for (const [at, record] of records.entries())
          expect(record, `${list} row ${at}`).toEqual(expectedRecord(items[at] ?? {}, header));
      }
      // The fixture has what the writer quotes (labels, JSON arrays) and nulls (no first trade).
      const traders = await (await fetch(`${base}/api/v1/tokens/${token}/traders?format=csv`)).text();
      expect(traders).toContain(',"[""sniper"",""bundler""]"\r\n');
      expect(traders).toContain(',"[""creator""]"\r\n');
      expect(traders).toMatch(/,\d+,,,,,(?:\[\]|"\[)/);
    });

    it('Accept: text/csv asks for the same export as format=csv; JSON stays the default and varies by Accept', async () => {
      const path = `${base}/api/v1/tokens/${token}/holders`;
      const byFormat = await (await fetch(`${path}?format=csv`)).text();
      const byAccept = await fetch(path, { headers: { accept: 'text/csv' } });
      expect(byAccept.headers.get('content-type')).toBe(csvType);
      expect(await byAccept.text()).toBe(byFormat);
      const preferred = await fetch(path, { headers: { accept: 'application/json;q=0.5, text/csv' } });
      expect(preferred.headers.get('content-type')).toBe(csvType);
      await preferred.arrayBuffer();
      for (const [query, accept] of [
        ['?limit=5', undefined],
        ['?limit=5', 'application/json, text/csv'],
        ['?limit=5', '*/*'],
        ['?limit=5&format=json', 'text/csv'],
      ] as const) {
        const response = await fetch(`${path}${query}`, accept ? { headers: { accept } } : {});
        expect(response.headers.get('content-type'), `${query} ${accept}`).toBe(
          'application/json; charset=utf-8',
        );
        expect(response.headers.get('vary')).toBe('accept');
        expect(((await response.json()) as { items: unknown[] }).items).toHaveLength(5);
      }
      // An answer from the read cache and a 304 say so too; routes without an export do not.
      const json = await fetch(`${path}?limit=5`);
      const etag = json.headers.get('etag') as string;
      const notModified = await fetch(`${path}?limit=5`, { headers: { 'if-none-match': etag } });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('vary')).toBe('accept');
      expect((await fetch(`${base}/api/v1/tokens/${token}`)).headers.get('vary')).toBeNull();
      // A route without an export ignores format, as any parameter it does not know.
      expect((await fetch(`${base}/api/v1/tokens/${token}?format=csv`)).headers.get('content-type')).toBe(
        'application/json; charset=utf-8',
      );
    });

    it('a bad or repeated format is 400 invalid_parameter, before anything is read', async () => {
      for (const query of [
        'format=CSV',
        'format=xml',
        'format=',
        'format=csv%20',
        'format=text/csv',
        'format=csv&format=csv',
      ]) {
        for (const list of ['trades', 'holders', 'traders']) {
          const response = await fetch(`${base}/api/v1/tokens/${token}/${list}?${query}`);
          expect(response.status, `${list}?${query}`).toBe(400);
          const body = (await response.json()) as { error: { code: string; details: { field: string }[] } };
          expect(body.error.code).toBe('invalid_parameter');
          expect(body.error.details[0]?.field).toBe('format');
        }
      }
      // The other parameters keep their rules in a CSV request.
      const bad = await fetch(`${base}/api/v1/tokens/${token}/traders?format=csv&sort=loudest`);
      expect(bad.status).toBe(400);
      expect(
        ((await bad.json()) as { error: { details: { field: string }[] } }).error.details[0]?.field,
      ).toBe('sort');
      // min_block is read as for a page: a malformed one is refused, a reached one answers.
      const early = await fetch(`${base}/api/v1/tokens/${token}/holders?format=csv&min_block=01`);
      expect(early.status).toBe(400);
      expect(((await early.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter');
      const reached = await fetch(`${base}/api/v1/tokens/${token}/holders?format=csv`, {
        headers: { 'x-min-indexed-block': '4000000' },
      });
      expect(reached.status).toBe(200);
      expect(reached.headers.get('x-indexed-through-block')).toBe('4000000');
      await reached.arrayBuffer();
      // Unknown parameters are still ignored, in either format.
      expect((await fetch(`${base}/api/v1/tokens/${token}/trades?utm=1&limit=2`)).status).toBe(200);
      const csv = await fetch(`${base}/api/v1/tokens/${token}/trades?utm=1&format=csv`);
      expect(csv.headers.get('x-export-rows')).toBe(String(LISTED_ROWS));
      await csv.arrayBuffer();
    });

    it('holders at a block have no export: block with CSV is 400 invalid_parameter, its JSON page answers', async () => {
      const path = `/api/v1/tokens/${token}/holders`;
      const csvRequests: [string, RequestInit][] = [
        ['?format=csv&block=4000000', {}],
        ['?block=4000000', { headers: { accept: 'text/csv' } }],
        ['?format=csv&block=1', { method: 'HEAD' }],
      ];
      for (const [query, init] of csvRequests) {
        const response = await fetch(`${base}${path}${query}`, init);
        expect(response.status, query).toBe(400);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        if (init.method === 'HEAD') continue;
        const body = (await response.json()) as {
          error: { code: string; message: string; details: { field: string }[] };
        };
        expect(body.error.code).toBe('invalid_parameter');
        expect(body.error.message).toBe('block cannot be combined with the CSV export');
        expect(body.error.details[0]?.field).toBe('block');
      }
      // format=json wins over Accept: the page at the block, the latest holders' first page.
      const json = await fetch(`${base}${path}?format=json&block=4000000&limit=5`, {
        headers: { accept: 'text/csv' },
      });
      expect(json.status).toBe(200);
      const page = (await json.json()) as { items: unknown[] };
      const now = (await (await fetch(`${base}${path}?limit=5`)).json()) as { items: unknown[] };
      expect(page.items).toHaveLength(5);
      expect(page.items).toEqual(now.items);
      // A list without balances at a block ignores `block` as any unknown parameter.
      const trades = await fetch(`${base}/api/v1/tokens/${token}/trades?format=csv&block=1`);
      expect(trades.status).toBe(200);
      expect(trades.headers.get('x-export-rows')).toBe(String(LISTED_ROWS));
      await trades.arrayBuffer();
    });

    it('HEAD answers the export headers without a body; errors before the first byte keep the JSON envelope', async () => {
      const path = `/api/v1/tokens/${token}/traders?format=csv`;
      const head = await openExport(`${base}${path}`, { method: 'HEAD' });
      const done = await head.done;
      expect(head.response.statusCode).toBe(200);
      expect(head.response.headers['content-type']).toBe(csvType);
      expect(head.response.headers['x-export-rows']).toBe(String(LISTED_ROWS));
      expect(head.response.headers['content-disposition']).toMatch(/^attachment; filename="traders-/);
      expect(done.bytes).toBe(0);
      const unknown = `0x${'ab'.repeat(20)}`;
      for (const [path, status, code] of [
        [`/api/v1/tokens/${unknown}/trades?format=csv`, 404, 'not_found'],
        [`/api/v1/tokens/0x12/holders?format=csv`, 400, 'invalid_address'],
        [`/api/v1/tokens/${token}/trades?format=csv&cursor=v2.bm90.aXQ`, 400, 'invalid_cursor'],
      ] as const) {
        for (const method of ['GET', 'HEAD'] as const) {
          const response = await fetch(`${base}${path}`, { method });
          expect(response.status, `${method} ${path}`).toBe(status);
          expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
          if (method === 'GET')
            expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
        }
      }
      // A holders cursor is no trades cursor.
      const holders = (await (await fetch(`${base}/api/v1/tokens/${token}/holders?limit=3`)).json()) as {
        next_cursor: string;
      };
      const foreign = await fetch(
        `${base}/api/v1/tokens/${token}/trades?format=csv&cursor=${encodeURIComponent(holders.next_cursor)}`,
      );
      expect(foreign.status).toBe(400);
      expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('invalid_cursor');
    });

    it('a cursor starts the export after its row, and limit does not cut it', async () => {
      const path = `/api/v1/tokens/${token}/traders?sort=volume`;
      const items = await walkJson(base, path);
      const page = (await (await fetch(`${base}${path}&limit=37`)).json()) as { next_cursor: string };
      const response = await fetch(
        `${base}${path}&limit=37&format=csv&cursor=${encodeURIComponent(page.next_cursor)}`,
      );
      expect(response.headers.get('x-export-rows')).toBe(String(items.length - 37));
      const [header = [], ...records] = parseCsv(await response.text());
      expect(records).toEqual(items.slice(37).map((item) => expectedRecord(item, header)));
    });
  });
});
