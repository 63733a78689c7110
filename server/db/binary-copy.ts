import { copyClientOf, serverRefusal } from './bulk';
import type { Database } from './client';

/**
 * PostgreSQL's binary COPY format, for rows whose bulk is bytes (the event store's chunks): text
 * COPY and parameters carry a bytea as hex, twice its size, encoded and parsed on both sides;
 * binary COPY carries the bytes as they are. Both drivers: postgres.js streams, PGlite a blob.
 * Only in: postgres.js 3.4.9 leaves a connection's socket paused for good after a large COPY
 * out (the last data paused it and the ended stream never asks for more), so reads of bytes go
 * as base64 (store/stored-feed.ts).
 */

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** A field of a binary COPY row: bigint or integer columns from numbers, bytea from bytes. */
export type BinaryField = { int8: number } | { int4: number } | { bytes: Uint8Array };

/** The rows as one binary COPY stream (header, tuples, trailer). */
export function encodeBinaryCopy(rows: readonly (readonly BinaryField[])[]): Buffer {
  let size = SIGNATURE.length + 8 + 2;
  for (const row of rows) {
    size += 2;
    for (const field of row) size += 4 + ('int8' in field ? 8 : 'int4' in field ? 4 : field.bytes.length);
  }
  const buffer = Buffer.allocUnsafe(size);
  let at = SIGNATURE.copy(buffer, 0);
  at = buffer.writeInt32BE(0, at);
  at = buffer.writeInt32BE(0, at);
  for (const row of rows) {
    at = buffer.writeInt16BE(row.length, at);
    for (const field of row) {
      if ('int8' in field) {
        at = buffer.writeInt32BE(8, at);
        at = buffer.writeBigInt64BE(BigInt(field.int8), at);
      } else if ('int4' in field) {
        at = buffer.writeInt32BE(4, at);
        at = buffer.writeInt32BE(field.int4, at);
      } else {
        at = buffer.writeInt32BE(field.bytes.length, at);
        buffer.set(field.bytes, at);
        at += field.bytes.length;
      }
    }
  }
  buffer.writeInt16BE(-1, at);
  return buffer;
}

const COPY_SLICE_BYTES = 1 << 20;

/** Appends binary COPY `data` (encodeBinaryCopy) to `table` (`names`, in the rows' field order). */
export async function copyBinaryIn(
  db: Database,
  table: string,
  names: readonly string[],
  data: Buffer,
): Promise<void> {
  const statement = `copy "${table}" (${names.map((n) => `"${n}"`).join(', ')})`;
  const copy = copyClientOf(db);
  if (copy.kind === 'pglite') {
    await copy.client.query(`${statement} from '/dev/blob' (format binary)`, [], {
      blob: new Blob([data as Uint8Array<ArrayBuffer>]),
    });
    return;
  }
  const query = copy.client.unsafe(`${statement} from stdin (format binary)`);
  const refused = serverRefusal(query);
  const stream = await query.writable();
  await new Promise<void>((resolve, reject) => {
    refused.catch(reject);
    stream.on('error', reject);
    // In slices, waiting for the socket: a refusal (a duplicate key in the first row) then
    // arrives while the rest waits, as with copyLines.
    let at = 0;
    const writeMore = () => {
      while (at < data.length) {
        const slice = data.subarray(at, at + COPY_SLICE_BYTES);
        at += slice.length;
        if (!stream.write(slice)) {
          stream.once('drain', writeMore);
          return;
        }
      }
      stream.end(() => resolve());
    };
    writeMore();
  });
}
