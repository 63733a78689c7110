/** The request target and Host as the front accepts them, before any routing. */

/** `host[:port]` of RFC 9110 (reg-name or IP literal); anything else is not a Host. */
export const hostPattern = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::[0-9]{0,5})?$/;
/**
 * Whether the WHATWG URL parser (the one Next.js and every web API use) accepts `host` as an
 * authority. RFC 9110's grammar admits names it refuses (`1.1.1.256`, `xn--a`, ports past 65535,
 * an empty Host), and a Host Next cannot parse fails deep in its request handling as a 500.
 */
export function isUrlHost(host: string): boolean {
  if (host === '') return false;
  // A server sees a handful of Host values all day: each is parsed once, not per request.
  let known = judgedHosts.get(host);
  if (known === undefined) {
    try {
      known = new URL(`http://${host}/`).host !== '';
    } catch {
      known = false;
    }
    // A client sending a new Host per request only ever refills a small map.
    if (judgedHosts.size >= MAX_JUDGED_HOSTS) judgedHosts.clear();
    judgedHosts.set(host, known);
  }
  return known;
}
const judgedHosts = new Map<string, boolean>();
const MAX_JUDGED_HOSTS = 256;
/** Longest request target (path and query) the front accepts: 414 past it. */
export const MAX_TARGET_BYTES = 8_192;

/**
 * The path of a request target, or why it is refused (origin-form, absolute-form). `path` is the
 * canonical raw spelling handed on (repeated slashes folded, no trailing slash), `decoded` the
 * same path percent-decoded: what routing and call counting look at, as tRPC and Next.js do.
 */
export function parseTarget(target: string): { path: string; decoded: string; search: string } | string {
  let raw = target;
  if (!raw.startsWith('/')) {
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'unsupported request target';
      raw = `${url.pathname}${url.search}`;
    } catch {
      return 'malformed request target';
    }
  }
  const queryAt = raw.indexOf('?');
  const rawPath = queryAt >= 0 ? raw.slice(0, queryAt) : raw;
  const search = queryAt >= 0 ? raw.slice(queryAt) : '';
  // One spelling per path: Next.js and this front must route the same bytes the same way, and
  // Next's trailing-slash redirect (which repeats the whole target twice in its head) never runs.
  let path = rawPath.includes('//') ? rawPath.replace(/\/{2,}/g, '/') : rawPath;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (/%2f|%5c|\\/i.test(path)) return 'encoded slashes are not allowed in paths';
  let decoded = path;
  if (path.includes('%'))
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return 'the path is not valid percent-encoded UTF-8';
    }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return 'the path contains control characters';
  if (decoded.includes('/.') && decoded.split('/').some((segment) => segment === '.' || segment === '..'))
    return 'dot segments are not allowed in paths';
  return { path, decoded, search };
}
