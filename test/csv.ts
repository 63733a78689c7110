import { createHash } from 'node:crypto';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';

/**
 * A test's own reading of CSV exports (docs/api.md, "CSV exports"): an RFC 4180 parser written
 * from the RFC, not from the server's writer, and a client that streams an export over node:http
 * so a test can pause it, cut it, and tell a complete answer from one that lost its last chunk.
 */

/** The records of an RFC 4180 text with CRLF line ends; anything else in it throws. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStart = true;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[at + 1] === '"') {
        field += '"';
        at++;
      } else {
        quoted = false;
        const next = text[at + 1];
        if (next !== ',' && next !== '\r') throw new Error(`text after a closing quote at ${at}`);
      }
      continue;
    }
    if (char === '"') {
      if (!fieldStart) throw new Error(`a quote inside an unquoted field at ${at}`);
      quoted = true;
      fieldStart = false;
    } else if (char === ',') {
      record.push(field);
      field = '';
      fieldStart = true;
    } else if (char === '\r') {
      if (text[at + 1] !== '\n') throw new Error(`CR without LF at ${at}`);
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStart = true;
      at++;
    } else if (char === '\n') throw new Error(`LF without CR at ${at}`);
    else {
      field += char;
      fieldStart = false;
    }
  }
  if (quoted || field !== '' || record.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

/** What one JSON item's record must hold, field by field: the JSON value's text. */
export function expectedRecord(item: Record<string, unknown>, header: readonly string[]): string[] {
  return header.map((key) => {
    const value = item[key];
    if (value === undefined) throw new Error(`the item has no ${key}`);
    if (value === null) return '';
    if (Array.isArray(value)) return JSON.stringify(value);
    return String(value);
  });
}

/** Every item of a JSON list, walked by `next_cursor` at 100 a page. */
export async function walkJson(base: string, path: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const url = `${base}${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await fetch(url);
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { items: Record<string, unknown>[]; next_cursor: string | null };
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

/** An export being received. */
export interface ExportDownload {
  response: IncomingMessage;
  request: ClientRequest;
  /** The body: its text (unless `hashOnly`), bytes, CRLFs, sha256; `complete` false when it lost its last chunk. */
  done: Promise<{ text: string; bytes: number; lines: number; sha256: string; complete: boolean }>;
}

/**
 * GETs (or HEADs) `url` over node:http from `localAddress` and starts reading the body, unless
 * `paused` (the test resumes `response` itself). `hashOnly`: the text is not kept (a 1M-row body).
 */
export function openExport(
  url: string,
  options: {
    method?: 'GET' | 'HEAD';
    headers?: Record<string, string>;
    localAddress?: string;
    paused?: boolean;
    hashOnly?: boolean;
  } = {},
): Promise<ExportDownload> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const hash = createHash('sha256');
      const parts: Buffer[] = [];
      let bytes = 0;
      let lines = 0;
      const done = new Promise<{
        text: string;
        bytes: number;
        lines: number;
        sha256: string;
        complete: boolean;
      }>((settle) => {
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          settle({
            text: Buffer.concat(parts).toString('utf8'),
            bytes,
            lines,
            sha256: hash.digest('hex'),
            complete: response.complete,
          });
        };
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          hash.update(chunk);
          for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
          if (!options.hashOnly) parts.push(chunk);
        });
        response.on('end', finish);
        response.on('error', finish);
        response.on('close', finish);
      });
      if (options.paused) response.pause();
      resolve({ response, request: outgoing, done });
    });
    outgoing.end();
  });
}
