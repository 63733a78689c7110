/**
 * The fold's rows in PostgreSQL's COPY text format: tab-separated fields, backslash escapes,
 * lines joined in blocks that copyLines (db/bulk.ts) writes as they are.
 */
import type { DecodedEvent } from '../decode/events';

const provenanceKeys = new Set([
  'type',
  'blockNumber',
  'blockHash',
  'transactionHash',
  'transactionIndex',
  'logIndex',
  'raw',
]);

/** COPY text format: a backslash is the escape character (JSON escapes are backslashes too). */
export const copyEscape = (text: string) =>
  text.replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );

/** The data keys of each event type, in the decoder's order: every event of a type has the same. */
const dataKeysOf = new Map<DecodedEvent['type'], string[]>();

/** The event's decoded arguments as the `data` jsonb: every field but provenance, as strings. */
export function eventDataJson(event: DecodedEvent): string {
  if (event.type === 'transfer') {
    // Hex addresses and a decimal need no JSON escaping; most events are transfers.
    return `{"token":"${event.token}","from":"${event.from}","to":"${event.to}","value":"${event.value}"}`;
  }
  let keys = dataKeysOf.get(event.type);
  if (!keys) {
    keys = Object.keys(event).filter((key) => !provenanceKeys.has(key));
    dataKeysOf.set(event.type, keys);
  }
  // Written out, not JSON.stringify of an object built per event (4–8 µs a Trade): numbers,
  // bigints and booleans print without anything to escape; strings (a token's name) are escaped.
  let json = '';
  for (const key of keys) {
    const value = (event as unknown as Record<string, unknown>)[key];
    json += `${json ? ',' : '{'}"${key}":${typeof value === 'string' ? JSON.stringify(value) : `"${String(value)}"`}`;
  }
  return `${json || '{'}}`;
}

/**
 * Lines are joined in blocks as they are made: the lines die young, and a block (~170 kB) lives
 * until its write as one large string that young-generation collections never copy, instead of
 * thousands of strings with the cons trees of their template literals (scavenges, copying what
 * outlives them, were ~28 % of the indexer thread's time in the benchmark's dense stretch).
 */
const LINES_PER_BLOCK = 512;

/** Collects lines and hands them back joined by newlines in blocks of up to LINES_PER_BLOCK. */
export function lineBlocks() {
  let lines: string[] = [];
  const blocks: string[] = [];
  return {
    push(line: string) {
      lines.push(line);
      if (lines.length === LINES_PER_BLOCK) {
        blocks.push(lines.join('\n'));
        lines = [];
      }
    },
    done(): string[] {
      if (lines.length > 0) blocks.push(lines.join('\n'));
      lines = [];
      return blocks;
    },
  };
}

/** The leading fields every `trades` and `chain_events` line shares: where the event sits on chain. */
export function provenanceText(event: DecodedEvent, timestamp: number): string {
  return `${event.blockNumber}\t${event.blockHash}\t${timestamp}\t${event.transactionHash}\t${event.transactionIndex}\t${event.logIndex}`;
}
