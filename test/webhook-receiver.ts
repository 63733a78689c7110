import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, webhookHeaders } from '../server/webhooks/signature';

/** What the receiver does with one POST: accept it, answer 500, or apply it and never answer. */
export type ReceiverAnswer = 'ok' | 'fail' | 'hang';

/** An event the receiver applied (its POST answered 2xx, or applied before hanging). */
export interface ReceivedWebhook {
  id: string;
  type: string;
  data: Record<string, unknown>;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  readonly url: string;
  /** The secret it verifies with; set once the target is added. */
  secret: string | undefined;
  /** Applied events, in arrival order (duplicates included; a batch's events one by one). */
  readonly applied: ReceivedWebhook[];
  /** Every POST that reached it: its webhook-id, the events it carried, what it answered. */
  readonly requests: { id: string; events: string[]; answer: ReceiverAnswer | 'refused' }[];
  /** TCP connections accepted so far (a kept-alive sender opens few). */
  readonly connections: number;
  /** TCP connections open now. */
  readonly openConnections: number;
  /** The most POSTs it was handling at once (1: the sender waits for each answer). */
  readonly maxInFlight: number;
  /** POSTs whose signature, timestamp or idempotency key did not verify (must stay 0). */
  readonly invalid: number;
  /** Forgets the refusals a test caused on purpose (a receiver left on a rotated-out secret). */
  clearInvalid(): void;
  /** Decides each POST's answer from its webhook-id and its events' ids (default: always ok). */
  answer: (id: string, events: readonly string[]) => ReceiverAnswer;
  /** Down: the port refuses connections (the listener closed) until set up again. */
  setDown(down: boolean): Promise<void>;
  /**
   * What a receiver holds after applying in order: an event sets its id, a retraction removes
   * the id it names. Throws if two deliveries of one id (an event, or a batch) differ in their
   * bytes (an event inside a batch: in its parsed form).
   */
  held(): Map<string, { type: string; data: Record<string, unknown> }>;
  close(): Promise<void>;
}

type WebhookBody = { id: string; type: string; data: Record<string, unknown> };

/**
 * A webhook receiver on loopback, written as docs/api.md tells a receiver to be: it verifies
 * every signature, reads one event or a batch of them, and deduplicates by id. Its answers are
 * scripted so tests can fail it. With `tls` it serves HTTPS (a target named by a host name).
 */
export async function startWebhookReceiver(
  options: { tls?: { key: string; cert: string } } = {},
): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  let connections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let invalid = 0;
  const batches = new Map<string, string>();
  const differing: string[] = [];
  const applied: ReceivedWebhook[] = [];
  const requests: WebhookReceiver['requests'] = [];
  const hanging = new Set<ServerResponse>();
  let server: Server;
  let port = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    response.once('close', () => inFlight--);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    let parsed: WebhookBody;
    let events: (WebhookBody & { body: string })[];
    try {
      parsed = JSON.parse(body);
      events =
        parsed.type === 'batch'
          ? (parsed.data as unknown as WebhookBody[]).map((event) => ({
              ...event,
              body: JSON.stringify(event),
            }))
          : [{ ...parsed, body }];
    } catch {
      invalid++;
      return void response.writeHead(400).end();
    }
    // Both ways a receiver checks a delivery: Standard Webhooks' own library, and the
    // deprecated Launchdex headers as docs/api.md's receiver reads them.
    const verified =
      receiver.secret !== undefined &&
      standardVerified(receiver.secret, request.headers, body) &&
      verifyWebhook(
        receiver.secret,
        {
          signature: header(webhookHeaders.launchdexSignature),
          timestamp: header(webhookHeaders.launchdexTimestamp),
        },
        body,
        Math.floor(Date.now() / 1000),
      ) &&
      header(webhookHeaders.id) === parsed.id &&
      header(webhookHeaders.idempotencyKey) === parsed.id;
    const ids = events.map((event) => event.id);
    if (!verified) {
      invalid++;
      requests.push({ id: parsed.id, events: ids, answer: 'refused' });
      return void response.writeHead(401).end();
    }
    const answer = receiver.answer(parsed.id, ids);
    requests.push({ id: parsed.id, events: ids, answer });
    if (answer === 'fail') return void response.writeHead(500).end('try later');
    if (parsed.type === 'batch') {
      const earlier = batches.get(parsed.id);
      if (earlier !== undefined && earlier !== body)
        differing.push(`two deliveries of ${parsed.id} differ:\n${earlier}\n${body}`);
      batches.set(parsed.id, body);
    }
    const receivedAt = Date.now();
    for (const event of events) applied.push({ ...event, receivedAt });
    if (answer === 'hang') {
      hanging.add(response);
      return;
    }
    response.writeHead(204).end();
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const serve = (request: IncomingMessage, response: ServerResponse) => {
        handle(request, response).catch(() => response.destroy());
      };
      server = options.tls ? createTlsServer(options.tls, serve) : createServer(serve);
      // As a receiver behind a load balancer keeps an idle connection (60 s at AWS's, 75 s at
      // nginx's): a test's pauses between drains do not close it.
      server.keepAliveTimeout = 60_000;
      server.on('connection', (socket: Socket) => {
        connections++;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = async () => {
    for (const response of hanging) response.destroy();
    hanging.clear();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  await listen();
  let down = false;
  const receiver: WebhookReceiver = {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/hooks`,
    secret: undefined,
    applied,
    requests,
    get connections() {
      return connections;
    },
    get openConnections() {
      return sockets.size;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    clearInvalid() {
      invalid = 0;
    },
    get invalid() {
      return invalid;
    },
    answer: () => 'ok',
    async setDown(value) {
      if (value === down) return;
      down = value;
      if (value) await stop();
      else await listen();
    },
    held() {
      if (differing.length > 0) throw new Error(differing[0]);
      const bodies = new Map<string, string>();
      const held = new Map<string, { type: string; data: Record<string, unknown> }>();
      for (const event of applied) {
        const earlier = bodies.get(event.id);
        if (earlier !== undefined && earlier !== event.body)
          throw new Error(`two deliveries of ${event.id} differ:\n${earlier}\n${event.body}`);
        bodies.set(event.id, event.body);
        if (event.type === 'retraction') held.delete(String(event.data.id));
        else held.set(event.id, { type: event.type, data: event.data });
      }
      return held;
    },
    async close() {
      if (!down) await stop();
    },
  };
  return receiver;
}

/** Whether the `standardwebhooks` package (what receivers install) accepts the delivery. */
function standardVerified(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
