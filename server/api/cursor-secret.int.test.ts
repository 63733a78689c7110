import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../test/app-server';
import {
  busy,
  type Instance,
  instanceOver,
  type Json,
  seed,
  seededInstance,
  storedSecrets,
} from '../../test/cursor-world';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { type Config, parseConfig } from '../config';
import { type DatabaseHandle, openDatabase } from '../db/client';
import { resolveCursorSecret } from './cursor-secret';

const backends = await availableBackends();

describe.each(backends)('cursor keys on a real database (%s)', (backend) => {
  let database: TestDatabase;
  let other: TestDatabase;
  let handle: DatabaseHandle;
  let otherHandle: DatabaseHandle;
  let config: Config;
  let api: Instance;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    other = await createTestDatabase(backend);
    ({ handle, config, api } = await seededInstance(database));
    otherHandle = await seed(other);
  });

  afterAll(async () => {
    await handle?.close();
    await otherHandle?.close();
    await database?.drop();
    await other?.drop();
  });

  it('the generated key is created once: concurrent first loads agree on one stored row', async () => {
    const fresh = await createTestDatabase(backend);
    const first = await fresh.open();
    // PostgreSQL: a second pool is a second instance; PGlite allows one process per directory.
    const second = backend === 'postgres' ? await fresh.open() : first;
    try {
      expect(await storedSecrets(first)).toEqual([]);
      const loads = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          resolveCursorSecret({ cursorSecret: undefined }, (n % 2 ? second : first).db),
        ),
      );
      expect(new Set(loads).size).toBe(1);
      expect(loads[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await storedSecrets(first)).toEqual([loads[0]]);
      expect(await resolveCursorSecret({ cursorSecret: undefined }, first.db)).toBe(loads[0]);
    } finally {
      if (second !== first) await second.close();
      await first.close();
      await fresh.drop();
    }
  });

  // Read-only roles are a PostgreSQL feature: on PGlite the case does not exist (it is not skipped).
  if (backend === 'postgres')
    it('an instance on a read-only database (a replica) reads the stored key, and without one says what to do', async () => {
      const replica = await createTestDatabase(backend);
      const empty = await createTestDatabase(backend);
      // Migrated (and, for `replica`, given its key) on the "primary", then opened read-only.
      const openReadOnly = async (target: TestDatabase, createKey: boolean) => {
        const primary = await target.open();
        const created = createKey
          ? await resolveCursorSecret({ cursorSecret: undefined }, primary.db)
          : undefined;
        const name = new URL((target.config as { url: string }).url).pathname.slice(1);
        await primary.exec(`alter database "${name}" set default_transaction_read_only = on`);
        await primary.close();
        return { created, handle: await openDatabase(target.config, { max: 1 }) };
      };
      const withKey = await openReadOnly(replica, true);
      const withoutKey = await openReadOnly(empty, false);
      try {
        expect(await resolveCursorSecret({ cursorSecret: undefined }, withKey.handle.db)).toBe(
          withKey.created,
        );
        await expect(resolveCursorSecret({ cursorSecret: undefined }, withoutKey.handle.db)).rejects.toThrow(
          /read-only replica.*CURSOR_SECRET/,
        );
      } finally {
        await withKey.handle.close();
        await withoutKey.handle.close();
        await Promise.all([replica.drop(), empty.drop()]);
      }
    });

  it('instances sharing a database accept each other’s cursors; another database rejects them', async () => {
    const secondHandle = backend === 'postgres' ? await database.open() : handle;
    try {
      const second = instanceOver(secondHandle, config, await resolveCursorSecret(config, secondHandle.db));
      expect(second.cursorSecret).toBe(api.cursorSecret);
      const elsewhere = instanceOver(
        otherHandle,
        parseConfig(other.env),
        await resolveCursorSecret(config, otherHandle.db),
      );
      expect(elsewhere.cursorSecret).not.toBe(api.cursorSecret);
      for (const route of [
        '/api/v1/tokens?limit=5',
        '/api/v1/tokens?search=tur&limit=2',
        `/api/v1/tokens/${busy}/holders?limit=4`,
      ]) {
        const pageOne = await api.get(route);
        const cursor = encodeURIComponent(pageOne.body.next_cursor);
        const fromFirst = await api.get(`${route}&cursor=${cursor}`);
        const fromSecond = await second.get(`${route}&cursor=${cursor}`);
        expect(fromSecond.status, route).toBe(200);
        expect(fromSecond.body, route).toEqual(fromFirst.body);
        // Same data, same list, another deployment's key: foreign.
        const foreign = await elsewhere.get(`${route}&cursor=${cursor}`);
        expect(foreign.status, route).toBe(400);
        expect(foreign.body.error.code, route).toBe('invalid_cursor');
        const back = await api.get(
          `${route}&cursor=${encodeURIComponent((await elsewhere.get(route)).body.next_cursor)}`,
        );
        expect(back.status, route).toBe(400);
      }
    } finally {
      if (secondHandle !== handle) await secondHandle.close();
    }
  });

  it('a configured CURSOR_SECRET is used as is: deployments sharing it accept each other’s cursors', async () => {
    const shared = parseConfig({ ...database.env, CURSOR_SECRET: 'shared-operator-key-0123' });
    expect(await resolveCursorSecret(shared, otherHandle.db)).toBe('shared-operator-key-0123');
    const one = instanceOver(handle, shared, await resolveCursorSecret(shared, handle.db));
    const two = instanceOver(otherHandle, shared, await resolveCursorSecret(shared, otherHandle.db));
    const cursor = encodeURIComponent((await one.get('/api/v1/tokens?limit=5')).body.next_cursor);
    expect((await two.get(`/api/v1/tokens?limit=5&cursor=${cursor}`)).status).toBe(200);
    expect((await api.get(`/api/v1/tokens?limit=5&cursor=${cursor}`)).status).toBe(400);
  });

  it('the generated key survives a restart: a cursor from before still works after reopening', async () => {
    const cursor = encodeURIComponent((await api.get('/api/v1/tokens?limit=5')).body.next_cursor);
    const before = await api.get(`/api/v1/tokens?limit=5&cursor=${cursor}`);
    await handle.close();
    handle = await database.open();
    const restarted = instanceOver(handle, config, await resolveCursorSecret(config, handle.db));
    expect(restarted.cursorSecret).toBe(api.cursorSecret);
    expect((await restarted.get(`/api/v1/tokens?limit=5&cursor=${cursor}`)).body).toEqual(before.body);
    api = restarted;
  });
});

// PGlite admits one process per database, so several real servers on one database means PostgreSQL.
if (backends.includes('postgres'))
  describe('real server processes (postgres)', () => {
    let shared: TestDatabase;
    let separate: TestDatabase;
    let servers: AppServer[] = [];

    beforeAll(async () => {
      shared = await createTestDatabase('postgres');
      separate = await createTestDatabase('postgres');
      await (await seed(shared)).close();
      await (await seed(separate)).close();
      servers = await Promise.all([
        startAppServer(shared.env),
        startAppServer(shared.env),
        startAppServer(separate.env),
      ]);
    });

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await shared?.drop();
      await separate?.drop();
    });

    it('two instances on one database generate one key and accept each other’s cursors; a third on another database rejects them', async () => {
      const [a, b, c] = servers as [AppServer, AppServer, AppServer];
      const get = async (server: AppServer, path: string) => {
        const response = await fetch(`${server.baseUrl}${path}`);
        return { status: response.status, body: (await response.json()) as Json };
      };
      // Both instances' first requests race to create the key.
      const [fromA, fromB] = await Promise.all([
        get(a, '/api/v1/tokens?search=tur&limit=2'),
        get(b, '/api/v1/tokens?limit=5'),
      ]);
      const handle = await shared.open();
      try {
        expect(await storedSecrets(handle)).toHaveLength(1);
      } finally {
        await handle.close();
      }
      for (const [page, path] of [
        [fromA, '/api/v1/tokens?search=tur&limit=2'],
        [fromB, '/api/v1/tokens?limit=5'],
      ] as const) {
        const cursor = `&cursor=${encodeURIComponent(page.body.next_cursor)}`;
        const onA = await get(a, `${path}${cursor}`);
        const onB = await get(b, `${path}${cursor}`);
        expect(onA.status, path).toBe(200);
        expect(onB.body, path).toEqual(onA.body);
        const onC = await get(c, `${path}${cursor}`);
        expect(onC.status, path).toBe(400);
        expect(onC.body.error.code, path).toBe('invalid_cursor');
      }
    });
  });
