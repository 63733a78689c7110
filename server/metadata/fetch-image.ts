import { request } from 'undici';
import { AppError, isAppError } from '../errors';
import { createDnsResolver } from './dns-resolver';
import { MAX_IMAGE_BYTES } from './image';
import { pinnedAgent } from './pinned-agent';
import { checkImageUrl, hostOf, pinPublicAddress, type ResolvedAddress, type Resolver } from './ssrf';

export interface ImageFetcherOptions {
  /** Default: c-ares queries to the system's name servers (server/metadata/dns-resolver.ts). */
  resolver?: Resolver;
  /**
   * Deadline of each DNS resolution (default 3 s), inside the fetch's own: a name whose answers
   * do not all arrive in time is `invalid_image` ("did not resolve within"), its queries cancelled.
   */
  dnsTimeoutMs?: number;
  /**
   * Where a TCP connection to a pinned (already checked) address really goes. Production: the
   * address itself. Tests map public test addresses to loopback servers, so no test ever opens a
   * connection to anything but 127.0.0.x.
   */
  route?: (pinned: ResolvedAddress, port: number) => { host: string; port: number };
  /** Extra trusted CA (tests' self-signed loopback certificate). */
  ca?: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export type ImageFetcher = (url: string) => Promise<Buffer>;

const failed = (message: string) => new AppError('invalid_image', message);

/**
 * `work`, unless `signal` aborts first: then `late()` is thrown at once and the work's eventual
 * outcome is ignored. For steps that may not heed a signal of their own (an injected resolver).
 */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal, late: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(late());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(late());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Fetches a creator's image URL without letting it reach anything private: https only, one DNS
 * resolution per hop judged in full, the connection pinned to the checked address, every
 * redirect (at most 3) checked again, https → http refused, total time and bytes capped. The one
 * deadline (`timeoutMs`, default 10 s) covers the whole fetch: every DNS resolution, connection,
 * redirect and byte of the body; each resolution also has its own (`dnsTimeoutMs`, default 3 s).
 */
export function createImageFetcher(options: ImageFetcherOptions = {}): ImageFetcher {
  const dnsTimeoutMs = options.dnsTimeoutMs ?? 3_000;
  const resolver = options.resolver ?? createDnsResolver({ timeoutMs: dnsTimeoutMs });
  const route = options.route ?? ((pinned, port) => ({ host: pinned.address, port }));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  const maxRedirects = options.maxRedirects ?? 3;

  return async (rawUrl) => {
    const signal = AbortSignal.timeout(timeoutMs);
    let current = rawUrl;
    for (let hop = 0; hop <= maxRedirects; hop++) {
      const url = checkImageUrl(current);
      const dnsSignal = AbortSignal.any([signal, AbortSignal.timeout(dnsTimeoutMs)]);
      const pinned = await beforeDeadline(pinPublicAddress(url, resolver, dnsSignal), dnsSignal, () =>
        failed(`image_url did not resolve within ${(signal.aborted ? timeoutMs : dnsTimeoutMs) / 1000} s`),
      );
      const port = Number(url.port || 443);
      const target = route(pinned, port);
      const agent = pinnedAgent(target, hostOf(url), {
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: timeoutMs,
      });
      try {
        let response: Awaited<ReturnType<typeof request>>;
        try {
          response = await request(url, {
            dispatcher: agent,
            signal,
            method: 'GET',
            headers: { accept: 'image/png,image/jpeg,image/webp,image/gif' },
          });
        } catch (error) {
          if (signal.aborted) throw failed(`image_url did not answer within ${timeoutMs / 1000} s`);
          throw failed(
            `image_url could not be fetched (${error instanceof Error ? error.message.slice(0, 120) : 'error'})`,
          );
        }
        if (response.statusCode >= 300 && response.statusCode < 400) {
          await response.body.dump().catch(() => {});
          const location = response.headers.location;
          if (typeof location !== 'string')
            throw failed(`image_url redirected (${response.statusCode}) without a Location`);
          if (hop === maxRedirects)
            throw new AppError('image_url_forbidden', `image_url redirected more than ${maxRedirects} times`);
          current = new URL(location, url).toString();
          continue;
        }
        if (response.statusCode !== 200) {
          await response.body.dump().catch(() => {});
          throw failed(`image_url answered HTTP ${response.statusCode}`);
        }
        const declared = Number(response.headers['content-length'] ?? Number.NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          response.body.destroy();
          throw new AppError('payload_too_large', `image_url is larger than ${maxBytes} bytes`);
        }
        const chunks: Buffer[] = [];
        let total = 0;
        try {
          for await (const chunk of response.body) {
            total += (chunk as Buffer).length;
            if (total > maxBytes) {
              response.body.destroy();
              throw new AppError('payload_too_large', `image_url is larger than ${maxBytes} bytes`);
            }
            chunks.push(chunk as Buffer);
          }
        } catch (error) {
          if (isAppError(error)) throw error;
          throw failed(
            signal.aborted
              ? `image_url did not finish within ${timeoutMs / 1000} s`
              : 'image_url broke off mid-transfer',
          );
        }
        return Buffer.concat(chunks);
      } finally {
        agent.close().catch(() => {});
      }
    }
    throw new AppError('image_url_forbidden', `image_url redirected more than ${maxRedirects} times`);
  };
}
