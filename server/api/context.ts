import { getConfig } from '../config';
import { getDatabase } from '../db';
import type { Context } from './trpc';

/** The context of one request in this process: the shared database, the config, the wall clock. */
export async function createRequestContext(): Promise<Context> {
  const config = getConfig();
  const { db } = await getDatabase(config);
  return { db, config, clock: () => new Date() };
}
