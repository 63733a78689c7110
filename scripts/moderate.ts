import { isLowercaseAddress } from '../shared/address';
/**
 * `npm run moderate -- exclude <address> [--reason "…"]` hides a token from every list;
 * `npm run moderate -- include <address>` lifts it; `npm run moderate -- list` shows exclusions.
 * Detail of an excluded token still answers, with `excluded: true` (docs/api.md).
 * With embedded PGlite, stop the web server first: one process may open the database.
 */

import { parseArgs } from 'node:util';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { excludeToken, includeToken, listExclusions } from '../server/tokens/moderation';
import { loadConfigOrExit } from './cli';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { reason: { type: 'string', default: '' } },
});
const [command, rawAddress] = positionals;
const usage = 'usage: npm run moderate -- exclude <address> [--reason "…"] | include <address> | list';
if (!command || !['exclude', 'include', 'list'].includes(command)) {
  console.error(usage);
  process.exit(2);
}
const address = rawAddress?.toLowerCase();
if (command !== 'list' && !(address && isLowercaseAddress(address))) {
  console.error(`a 0x-prefixed 20-byte token address is required\n${usage}`);
  process.exit(2);
}
const config = loadConfigOrExit();
const handle = await openDatabase(config.database, { max: 1 });
try {
  await migrateDatabase(handle);
  if (command === 'exclude') {
    const { indexed } = await excludeToken(handle.db, address as string, values.reason);
    console.log(
      `excluded ${address}${indexed ? '' : ' (not indexed yet; the exclusion applies when it is)'}`,
    );
  } else if (command === 'include') {
    const { wasExcluded } = await includeToken(handle.db, address as string);
    console.log(wasExcluded ? `re-included ${address}` : `${address} was not excluded`);
  } else {
    const rows = await listExclusions(handle.db);
    if (rows.length === 0) console.log('no exclusions');
    for (const row of rows) console.log(`${row.tokenAddress}  ${row.createdAt.toISOString()}  ${row.reason}`);
  }
} finally {
  await handle.close();
}
