import { Resolver as AresResolver } from 'node:dns/promises';
import type { ResolvedAddress, Resolver } from './ssrf';

/** How much later than `timeoutMs` c-ares itself gives up (see createDnsResolver). */
const DEADLINE_GRACE_MS = 500;

export interface DnsResolverOptions {
  /** Name servers (`1.1.1.1`, `[2606:4700::1111]:53`); undefined: the system's resolv.conf ones. */
  servers?: string[] | undefined;
  /** How long c-ares waits for each server before it tries the next (and gives up after the last). */
  timeoutMs: number;
}

/**
 * Resolves names for `image_url` fetches with c-ares (node:dns `Resolver`): every A and AAAA
 * answer, for the SSRF policy to judge all of them. Unlike `dns.lookup` (getaddrinfo), a query
 * runs on the event loop, not on one of libuv's 4 pool threads that file I/O and sharp share, so a
 * name that never resolves stalls nobody else; and it can be cancelled: the `signal` a fetch
 * passes (its deadline) cancels the queries at once. Names are resolved through DNS only:
 * `/etc/hosts` is not read, so no name this machine alone knows can be reached through it.
 *
 * @example const resolve = createDnsResolver({ timeoutMs: 3_000 }); await resolve('example.com');
 */
export function createDnsResolver(options: DnsResolverOptions): Resolver {
  return async (hostname, signal) => {
    // One channel per resolution: cancel() cancels every query of its channel, and only this
    // resolution's may be cancelled by its deadline.
    // c-ares gives up a little after the deadline: a caller's deadline (`signal`, set to the
    // same timeoutMs) then always answers first, with its "did not resolve within" refusal,
    // and cancels the queries; at equal times the two raced and a loaded server sometimes
    // refused with "could not resolve" instead. Without a signal, this is the deadline.
    const resolver = new AresResolver({ timeout: options.timeoutMs + DEADLINE_GRACE_MS, tries: 1 });
    if (options.servers) resolver.setServers(options.servers);
    const cancel = () => resolver.cancel();
    if (signal?.aborted) throw new Error(`resolving ${hostname} was cancelled`);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      if (v4.status === 'rejected' && v6.status === 'rejected') throw v4.reason;
      return [
        ...(v4.status === 'fulfilled'
          ? v4.value.map((address): ResolvedAddress => ({ address, family: 4 }))
          : []),
        ...(v6.status === 'fulfilled'
          ? v6.value.map((address): ResolvedAddress => ({ address, family: 6 }))
          : []),
      ];
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };
}
