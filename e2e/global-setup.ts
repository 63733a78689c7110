import { startAppServer } from '../server/_test/app-server';
import { createTestDatabase } from '../server/_test/database';
import { fixtureToken, insertTokens, setCheckpoint } from '../server/_test/fixtures';

/** Starts the real production server on a fresh embedded database with a few fixture tokens. */
export default async function globalSetup() {
  const database = await createTestDatabase('pglite');
  const handle = await database.open();
  await insertTokens(handle.db, [
    fixtureToken(1, { name: 'Alpha Launch', symbol: 'ALPHA' }),
    fixtureToken(2, { name: 'Beta Launch', symbol: 'BETA' }),
    fixtureToken(3, { name: '<img src=x onerror=alert(1)>', symbol: 'XSS' }),
  ]);
  await setCheckpoint(handle.db, 200);
  await handle.close();
  const server = await startAppServer(database.env);
  process.env.E2E_BASE_URL = server.baseUrl;
  return async () => {
    await server.stop();
    await database.drop();
  };
}
