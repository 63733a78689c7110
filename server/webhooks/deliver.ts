import { request } from 'undici';
import { hostOf, type ResolvedAddress, type Resolver } from '../metadata/ssrf';
import type { WebhookConnections } from './connections';
import type { WebhookMessage } from './message';
import { signStandardWebhook, signWebhook, webhookHeaders } from './signature';
import { pinWebhookAddress, type WebhookUrlPolicy } from './target-url';

export interface WebhookPostOptions {
  resolver: Resolver;
  policy: WebhookUrlPolicy;
  /** Whole-request deadline: DNS, connect, headers and the answer's body. */
  timeoutMs: number;
  /**
   * Where a connection to the pinned address really goes (as in fetch-image.ts): production, the
   * address itself; a test may map a public test address to a loopback server.
   */
  route?: (pinned: ResolvedAddress, port: number) => { host: string; port: number };
  /** The worker's kept-alive connections, one per target. */
  connections: WebhookConnections;
  /** The worker stopping: the POST is abandoned (it stays at the head of the queue). */
  signal?: AbortSignal;
}

/** What one POST came to: only a 2xx answer counts as delivered. */
export type WebhookPostOutcome =
  | { status: 'delivered'; httpStatus: number }
  | { status: 'failed'; error: string };

/** The answer body read at most: a receiver's error page is not our business beyond its status. */
const MAX_ANSWER_BYTES = 16_384;

/**
 * POSTs one signed message (an event, or a batch of them: message.ts) to a target: the URL
 * checked and its address resolved and vetted anew (SSRF, docs/security.md), then sent on the
 * target's kept-alive connection if that goes to this very address, else on a new one; no
 * redirects followed, everything under one deadline. A refused check closes the kept connection.
 */
export async function postWebhook(
  /** `secrets`: the current one first, then the previous one while it still signs. */
  target: { id: string; url: string; secrets: readonly string[] },
  message: WebhookMessage,
  options: WebhookPostOptions,
): Promise<WebhookPostOutcome> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const { connections } = options;
  let url: URL;
  let pinned: ResolvedAddress;
  try {
    url = new URL(target.url);
    pinned = await pinWebhookAddress(
      url,
      options.resolver,
      options.policy,
      signal,
      connections.pinned(target.id),
    );
  } catch (error) {
    connections.drop(target.id);
    return { status: 'failed', error: `refused: ${error instanceof Error ? error.message : String(error)}` };
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const destination = options.route?.(pinned, port) ?? { host: pinned.address, port };
  const agent = connections.agent(target.id, {
    origin: url.origin,
    pinned: pinned.address,
    ...destination,
    servername: hostOf(url),
  });
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await request(url, {
      dispatcher: agent,
      signal,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Launchdex-Webhooks/1',
        [webhookHeaders.id]: message.id,
        [webhookHeaders.timestamp]: String(timestamp),
        [webhookHeaders.signature]: signStandardWebhook(target.secrets, message.id, timestamp, message.body),
        [webhookHeaders.idempotencyKey]: message.id,
        [webhookHeaders.launchdexTimestamp]: String(timestamp),
        [webhookHeaders.launchdexSignature]: target.secrets
          .map((secret) => signWebhook(secret, timestamp, message.body))
          .join(','),
      },
      body: message.body,
    });
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).length;
      if (read > MAX_ANSWER_BYTES) {
        response.body.destroy();
        break;
      }
    }
    if (response.statusCode >= 200 && response.statusCode < 300)
      return { status: 'delivered', httpStatus: response.statusCode };
    return { status: 'failed', error: `HTTP ${response.statusCode}` };
  } catch (error) {
    if (deadline.aborted) return { status: 'failed', error: `no answer within ${options.timeoutMs} ms` };
    if (signal.aborted) return { status: 'failed', error: 'the worker stopped' };
    return {
      status: 'failed',
      error:
        (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 200) ?? 'error',
    };
  }
}
