/**
 * `npm run purge-drafts` deletes the drafts not bound within DRAFT_TTL_HOURS, with their images
 * unless another draft uses them, printing a line per batch; `-- --dry-run` only reports what it
 * would delete. The web processes run the same purge every DRAFT_PURGE_INTERVAL_MS; this is for
 * running it now, or from cron with DRAFT_PURGE_INTERVAL_MS=0. With embedded PGlite, stop the web
 * server first: one process may open the database.
 */

import { parseArgs } from 'node:util';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { previewPurge, purgeExpiredDrafts } from '../server/metadata/purge-drafts';
import { openObjectStore } from '../server/objects/store';
import { loadConfigOrExit } from './cli';

const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false } } });
const config = loadConfigOrExit();
const handle = await openDatabase(config.database, { max: 2, applicationName: 'launchdex-purge-drafts' });
const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const hours = config.drafts.ttlMs / 3_600_000;
try {
  await migrateDatabase(handle);
  if (values['dry-run']) {
    const preview = await previewPurge({ db: handle.db, ttlMs: config.drafts.ttlMs });
    console.log(
      `dry run: would delete ${preview.drafts} drafts unbound for more than ${hours} h and ${preview.objects} objects (${megabytes(preview.bytes)}) no other draft uses; ${preview.keptShared} objects stay (another draft uses them)`,
    );
  } else {
    console.log(`deleting drafts unbound for more than ${hours} h`);
    const result = await purgeExpiredDrafts({
      db: handle.db,
      objects: await openObjectStore(config.objects),
      ttlMs: config.drafts.ttlMs,
      onProgress: (totals) =>
        console.log(
          `  ${totals.drafts} drafts, ${totals.objects} objects (${megabytes(totals.bytes)}) so far`,
        ),
      onDeleteFailed: (key, error) =>
        console.error(`  could not delete object ${key}: ${error instanceof Error ? error.message : error}`),
    });
    if (result.status === 'busy') {
      console.error('another process is purging right now; nothing done');
      process.exitCode = 1;
    } else {
      console.log(
        `deleted ${result.drafts} drafts and ${result.objects} objects (${megabytes(result.bytes)}); ${result.keptShared} objects stay (another draft uses them)`,
      );
    }
  }
} finally {
  await handle.close();
}
