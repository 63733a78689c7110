import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connect to the end of the answer (or the connection). */
  ms: number;
}

/**
 * Sends bytes exactly as given (a malformed request line, a bad Host, a header flood, a drip)
 * and reads what comes back until the server closes or `timeoutMs` passes. `drip` writes the
 * request in pieces with pauses, as a slow client would.
 */
export function rawRequest(
  port: number,
  request: string | Buffer | (string | Buffer | number)[],
  options: { timeoutMs?: number; localAddress?: string } = {},
): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect({
      port,
      host: '127.0.0.1',
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const head = headEnd >= 0 ? text.slice(0, headEnd) : text;
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = headEnd >= 0 ? text.slice(headEnd + 4) : '';
      if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body,
        ms: performance.now() - started,
      });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 5_000);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // One answer is all a raw request waits for: stop once its body is complete.
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, headEnd))?.[1];
      if (length !== undefined && Buffer.byteLength(text.slice(headEnd + 4), 'latin1') >= Number(length))
        finish();
      if (/^HTTP\/1\.1 (204|304)/.test(text)) finish();
      if (length === undefined && text.endsWith('\r\n0\r\n\r\n')) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error) => (chunks.length > 0 ? finish() : done || reject(error)));
    const parts = Array.isArray(request) ? request : [request];
    (async () => {
      for (const part of parts) {
        if (done) return;
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
        else socket.write(part);
      }
    })();
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return out;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
