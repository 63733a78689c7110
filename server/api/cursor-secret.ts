import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Config } from '../config';
import type { Database } from '../db';
import { isConnectionError } from '../db/connector';
import { serviceSecrets } from '../db/schema';

/** The `service_secrets` row holding the generated cursor key. */
export const CURSOR_SECRET_NAME = 'cursor_hmac_key';

const GENERATED_KEY_BYTES = 32;

/**
 * The cursor key kept in the database, created by whichever process asks first.
 * @dev read, else insert-if-absent and read again: when several instances start at once, every
 * insert but the first does nothing (PostgreSQL makes the losers wait for the winner's commit)
 * and each reads the winner's key, so all instances on one database sign and verify alike. An
 * instance on a read-only replica only reads: the key must exist on the primary first.
 * @example const secret = await loadPersistedCursorSecret(db); // 43 base64url characters
 */
export async function loadPersistedCursorSecret(db: Database): Promise<string> {
  const existing = await readStoredCursorSecret(db);
  if (existing !== undefined) return existing;
  try {
    await db
      .insert(serviceSecrets)
      .values({ name: CURSOR_SECRET_NAME, value: randomBytes(GENERATED_KEY_BYTES).toString('base64url') })
      .onConflictDoNothing({ target: serviceSecrets.name });
  } catch (error) {
    throw new Error(
      `could not store the generated cursor key in service_secrets (a read-only replica?): start an instance on the primary first, or set CURSOR_SECRET`,
      { cause: error },
    );
  }
  const stored = await readStoredCursorSecret(db);
  if (stored === undefined)
    throw new Error(`service_secrets has no ${CURSOR_SECRET_NAME} row after inserting it`);
  return stored;
}

async function readStoredCursorSecret(db: Database): Promise<string | undefined> {
  const [row] = await db
    .select({ value: serviceSecrets.value })
    .from(serviceSecrets)
    .where(eq(serviceSecrets.name, CURSOR_SECRET_NAME));
  return row?.value;
}

/**
 * The key cursors are signed with: CURSOR_SECRET when set (validated at start-up), else the
 * key persisted in `db`. There is no built-in key: a public one would let anyone forge cursors.
 * While the primary cannot be reached (a read-only start), the key is read from a replica that
 * has it.
 * @example const secret = await resolveCursorSecret(config, db, replicas);
 */
export async function resolveCursorSecret(
  config: Pick<Config, 'cursorSecret'>,
  db: Database,
  replicas: readonly Database[] = [],
): Promise<string> {
  if (config.cursorSecret !== undefined) return config.cursorSecret;
  try {
    return await loadPersistedCursorSecret(db);
  } catch (error) {
    if (!isConnectionError(error)) throw error;
    for (const replica of replicas) {
      const stored = await readStoredCursorSecret(replica).catch(() => undefined);
      if (stored !== undefined) return stored;
    }
    throw error;
  }
}
