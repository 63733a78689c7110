import ipaddr from 'ipaddr.js';
import { AppError } from '../errors';

/** One DNS answer. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to all its A and AAAA answers; injected so tests never touch DNS. When
 * `signal` aborts (the caller's deadline passed), the resolution may stop: its outcome is ignored.
 */
export type Resolver = (hostname: string, signal?: AbortSignal) => Promise<ResolvedAddress[]>;

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether `address` may be connected to on a creator's behalf: public unicast only.
 * IPv4-mapped IPv6 is judged as the IPv4 it carries; other IPv6 must be global unicast
 * (2000::/3) and not one of the special ranges inside it (NAT64 64:ff9b::/96 is outside it,
 * 6to4 2002::/16, Teredo 2001::/32, documentation, ORCHID … are named ranges).
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
  }
  return parsed.range() === 'unicast';
}

const forbidden = (message: string) => new AppError('image_url_forbidden', message);

/**
 * Checks an image URL before any connection: https only, no credentials, and a host that is
 * either a public IP literal or a name. (WHATWG URL parsing has already turned `127.1`,
 * `2130706433`, `0x7f.1` and `0177.0.0.1` into 127.0.0.1, and dropped a trailing dot.)
 */
export function checkImageUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw forbidden('image_url is not a valid URL');
  }
  if (url.protocol !== 'https:')
    throw forbidden(`image_url must use https (got ${url.protocol.replace(':', '')})`);
  if (url.username !== '' || url.password !== '') throw forbidden('image_url must not contain credentials');
  const host = hostOf(url);
  if (ipaddr.isValid(host) && !isPublicAddress(host))
    throw forbidden('image_url points to a private, loopback, link-local or reserved address');
  if (host === '' || host === 'localhost' || host.endsWith('.localhost'))
    throw forbidden('image_url points to this machine');
  return url;
}

/** The host without IPv6 brackets or a trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/**
 * The one address a fetch of `url` may connect to. A name is resolved exactly once; if any
 * answer is not public the whole name is refused (a mixed A/AAAA answer is an attack, not a
 * choice), and a failed resolution refuses too (fail closed). The caller connects to the
 * returned address only, so a second, rebinding answer can never be used. `prefer` (the address
 * of a connection the caller keeps open) is returned when it is among this resolution's answers,
 * so a name answering in rotating order does not cost a new connection each time.
 */
export async function pinPublicAddress(
  url: URL,
  resolver: Resolver,
  signal?: AbortSignal,
  /** What the URL is, in the refusal's message (webhook targets pass through here too). */
  subject = 'image_url',
  prefer?: string,
): Promise<ResolvedAddress> {
  const host = hostOf(url);
  if (ipaddr.isValid(host)) {
    if (!isPublicAddress(host)) throw forbidden(`${subject} points to a non-public address`);
    return { address: ipaddr.parse(host).toString(), family: host.includes(':') ? 6 : 4 };
  }
  let answers: ResolvedAddress[];
  try {
    answers = await resolver(host, signal);
  } catch {
    throw forbidden(`could not resolve ${host}`);
  }
  if (answers.length === 0) throw forbidden(`${host} has no addresses`);
  const blocked = answers.find((answer) => !isPublicAddress(answer.address));
  if (blocked) throw forbidden(`${host} resolves to a non-public address`);
  return answers.find((answer) => answer.address === prefer) ?? (answers[0] as ResolvedAddress);
}
