import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../errors';
import { canonicalAddress, clientAddress } from './client-address';
import { failRequestBody } from './web-bridge';

// Connection-level answers of the front: caps per address, requests node:http cannot parse.

/**
 * Open connections per peer address. Only without a trusted proxy: behind one, every connection
 * comes from the proxy, which must cap them itself. Past the cap a connection is closed at once,
 * before any request on it is read.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = canonicalAddress(socket.remoteAddress);
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * Requests node:http rejects before the app sees them (unparsable, unknown method, oversized
 * headers, a head that never finished) still get a JSON envelope, then the connection closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished && socket.writable) {
    // The bytes after a request are garbage (a broken pipeline): that request still gets its
    // answer, then the connection closes; a handler that never answers is cut by its deadlines.
    inFlight.shouldKeepAlive = false;
    if (inFlight.req && !inFlight.req.complete)
      failRequestBody(inFlight.req, new AppError('bad_request', 'malformed request body framing'));
    inFlight.once('finish', () => socket.destroySoon());
    inFlight.once('close', () => socket.destroy());
    return;
  }
  if (!socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ([431, 'headers_too_large', 'request headers are too large'] as const)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT'
        ? ([408, 'request_timeout', 'the request did not arrive in time'] as const)
        : error.code === 'HPE_INVALID_METHOD'
          ? ([405, 'method_not_allowed', 'unknown method'] as const)
          : ([400, 'bad_request', 'malformed HTTP request'] as const);
  writeRawRefusal(socket, status, code, message);
}

/** A JSON envelope written straight to a socket node:http has given up on, which is then closed. */
export function writeRawRefusal(socket: Socket, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${code.replace(/_/g, ' ')}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}

const peerClients = new WeakMap<Socket, string>();

/**
 * The client key of a connection's peer (no trusted proxy): parsed once per connection, not per
 * request, since a kept-alive connection carries many.
 */
export function peerClient(socket: Socket): string {
  let client = peerClients.get(socket);
  if (client === undefined) {
    client = clientAddress(socket.remoteAddress, undefined, 0);
    peerClients.set(socket, client);
  }
  return client;
}
