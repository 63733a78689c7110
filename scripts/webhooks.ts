/**
 * `npm run webhooks -- add URL [--token ADDRESS] [--events trade,launch,graduation] | list |
 * remove ID | rotate-secret ID | status`: the operator configures webhook targets here (docs/
 * operations.md, "Webhooks"). With embedded PGlite, stop the web server first: one process may
 * open the database.
 */

import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { createDnsResolver } from '../server/metadata/dns-resolver';
import { runWebhooksCommand } from '../server/webhooks/command';
import { loadConfigOrExit } from './cli';

const config = loadConfigOrExit();
const handle = await openDatabase(config.database, { max: 1, applicationName: 'launchdex-webhooks-cli' });
try {
  await migrateDatabase(handle);
  process.exitCode = await runWebhooksCommand(process.argv.slice(2), {
    db: handle.db,
    resolver: createDnsResolver({ servers: config.imageDns.servers, timeoutMs: config.imageDns.timeoutMs }),
    policy: { allowLoopback: config.webhooks.allowLoopback },
    retry: config.webhooks.retry,
    print: (line) => console.log(line),
    printError: (line) => console.error(line),
  });
} finally {
  await handle.close();
}
