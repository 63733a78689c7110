import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { fixtureToken, insertTokens, setCheckpoint } from '../../test/fixtures';
import { closeTestProcess, startTestProcess } from '../../test/process';
import { answerWebRequest } from '../api/rest/web-request';
import { bumpReadVersion } from '../db/read-version';
import type { ServerProcess } from '.';

const backend = (await availableBackends())[0] ?? 'pglite';

/**
 * Rule (docs/architecture.md, "The process object"): every service of a web process is built
 * once into its process object and passed down; no module keeps one of its own. Proof: two
 * processes built in one Node process over two databases each answer every transport (REST, the
 * pages' caller, the cursor key) from their own database. A module-level database, cache or key
 * would make the second answer with the first's.
 */
describe(`the process object (${backend})`, () => {
  const databases: TestDatabase[] = [];
  const houses: ServerProcess[] = [];

  beforeAll(async () => {
    for (const tokens of [3, 5]) {
      const database = await createTestDatabase(backend);
      databases.push(database);
      const handle = await database.open();
      await insertTokens(
        handle.db,
        Array.from({ length: tokens }, (_, i) => fixtureToken(i)),
      );
      await setCheckpoint(handle.db, 10 * tokens);
      await bumpReadVersion(handle.db);
      await handle.close();
    }
    // One after the other: PGlite opens its directory in this process.
    for (const database of databases) {
      houses.push(await startTestProcess(database));
    }
  }, 60_000);

  afterAll(async () => {
    for (const house of houses) {
      await closeTestProcess(house);
    }
    await Promise.all(databases.map((database) => database.drop()));
  });

  it('each process answers REST, its pages and its tRPC context from its own database', async () => {
    const [first, second] = houses as [ServerProcess, ServerProcess];
    const list = async (house: ServerProcess) => {
      const response = await answerWebRequest(
        house.rest,
        new Request('http://launchdex.test/api/v1/tokens?limit=50'),
      );
      expect(response.status).toBe(200);
      return (await response.json()) as { items: unknown[] };
    };
    // Asked twice: the second answer comes from the read cache, which is the process's too.
    for (let round = 0; round < 2; round++) {
      expect((await list(first)).items).toHaveLength(3);
      expect((await list(second)).items).toHaveLength(5);
    }
    const pageList = async (house: ServerProcess) => (await house.pages.reads.tokens({})).items;
    expect(await pageList(first)).toHaveLength(3);
    expect(await pageList(second)).toHaveLength(5);
    for (const house of houses) {
      // One database per process, shared by the procedures' context; one key per database.
      expect(house.context.db).toBe(house.database.db);
      expect(house.context.cursorSecret).toBe(house.cursorSecret);
    }
    expect(first.cursorSecret).not.toBe(second.cursorSecret);
  });

  it('health and readiness look at the process’s own database', async () => {
    for (const house of houses) {
      const response = await house.web.system(new Request('http://launchdex.test/api/health'));
      expect(response.status).toBe(200);
      const health = (await response.json()) as { database: { driver: string } };
      expect(health.database.driver).toBe(backend);
    }
  });
});
