import ipaddr from 'ipaddr.js';
import {
  hostOf,
  isPublicAddress,
  pinPublicAddress,
  type ResolvedAddress,
  type Resolver,
} from '../metadata/ssrf';

/** A target URL refused by the SSRF policy (docs/security.md, "Webhooks"). */
export class WebhookUrlRefused extends Error {
  override name = 'WebhookUrlRefused';
}

export interface WebhookUrlPolicy {
  /**
   * Also admit http and https to a loopback IP literal (127.0.0.0/8, ::1). For tests and the
   * chaos runs only (WEBHOOK_ALLOW_LOOPBACK); never set in production.
   */
  allowLoopback: boolean;
}

function loopbackLiteral(host: string): boolean {
  return ipaddr.isValid(host) && ipaddr.parse(host).range() === 'loopback';
}

/**
 * Checks a target URL before any connection, as image_url is checked: https only, no
 * credentials, no fragment, and a host that is a public IP literal or a name (judged at each
 * delivery by {@link pinWebhookAddress}). Returns the normalized URL.
 */
export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('the webhook URL is not a valid URL');
  }
  if (url.username !== '' || url.password !== '')
    throw new WebhookUrlRefused('the webhook URL must not contain credentials');
  const host = hostOf(url);
  if (
    policy.allowLoopback &&
    loopbackLiteral(host) &&
    (url.protocol === 'http:' || url.protocol === 'https:')
  )
    return url;
  if (url.protocol !== 'https:')
    throw new WebhookUrlRefused(`the webhook URL must use https (got ${url.protocol.replace(':', '')})`);
  if (host === '' || host === 'localhost' || host.endsWith('.localhost'))
    throw new WebhookUrlRefused('the webhook URL points to this machine');
  if (ipaddr.isValid(host) && !isPublicAddress(host))
    throw new WebhookUrlRefused(
      'the webhook URL points to a private, loopback, link-local or reserved address',
    );
  return url;
}

/**
 * The one address a delivery to `url` may connect to: resolved now (DNS may have changed since
 * the target was added), every answer public or the whole name refused, and the connection
 * pinned to the address returned, so a rebinding second answer is never used. `prefer`, the
 * address of the target's kept-alive connection, is returned while it is still among the answers.
 */
export async function pinWebhookAddress(
  url: URL,
  resolver: Resolver,
  policy: WebhookUrlPolicy,
  signal?: AbortSignal,
  prefer?: string,
): Promise<ResolvedAddress> {
  const checked = checkWebhookUrl(url.toString(), policy);
  const host = hostOf(checked);
  if (policy.allowLoopback && loopbackLiteral(host))
    return { address: ipaddr.parse(host).toString(), family: host.includes(':') ? 6 : 4 };
  try {
    return await pinPublicAddress(checked, resolver, signal, 'the webhook URL', prefer);
  } catch (error) {
    throw new WebhookUrlRefused(error instanceof Error ? error.message : String(error));
  }
}
