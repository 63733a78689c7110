import fc from 'fast-check';
import type { Corpus } from './corpus';
import { addressText, searchText } from './identifiers';
import {
  type FuzzRequest,
  ifNoneMatch,
  knownEntries,
  methodMix,
  printable,
  queryString,
  unknownEntries,
  withHeaders,
} from './request';
import { headerText, hostileText, percentEncode, wireText } from './text';
import { parameterText } from './values';

/** `/objects/<key>`: stored keys, near misses, hostile names, extra segments; GET and HEAD. */
export function objectRequest(corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  const real = fc.constantFrom(
    ...(corpus.objectKeys.length > 0 ? corpus.objectKeys : [`${'a'.repeat(64)}.png`]),
  );
  const key = fc.oneof(
    { arbitrary: real, weight: 5 },
    { arbitrary: real.map((k) => k.toUpperCase()), weight: 1 },
    { arbitrary: real.map((k) => k.replace(/\.\w+$/, '.svg')), weight: 1 },
    { arbitrary: real.map((k) => k.replace(/\.\w+$/, '.jpg')), weight: 1 },
    { arbitrary: real.map((k) => k.slice(1)), weight: 1 },
    { arbitrary: real.map((k) => `${k}/x`), weight: 1 },
    { arbitrary: real.map((k) => `${k}%00.png`), weight: 1 },
    {
      arbitrary: fc
        .uint8Array({ minLength: 32, maxLength: 32 })
        .map((b) => `${Buffer.from(b).toString('hex')}.png`),
      weight: 2,
    },
    { arbitrary: hostileText.map(percentEncode), weight: 2 },
    { arbitrary: wireText, weight: 1 },
  );
  return fc
    .record({
      key,
      query: unknownEntries,
      method: methodMix('GET', 6, ['HEAD', 'POST']),
      etag: fc.oneof(
        ifNoneMatch,
        real.map((k) => `"${k.slice(0, 64)}"`),
      ),
      range: fc.option(fc.constantFrom('bytes=0-10', 'bytes=-5', 'bytes=999999-', 'bytes=x', 'pages=1'), {
        freq: 6,
      }),
    })
    .map(({ key, query, method, etag, range }) =>
      printable({
        route: 'GET /objects/{key}',
        method,
        target: `/objects/${key}${queryString(query)}`,
        headers: withHeaders({ 'if-none-match': etag, range: range ?? undefined }),
        shape: 'envelope',
      }),
    );
}

const SYSTEM_PATHS = ['/api/health', '/api/ready', '/api/v1/openapi.json', '/api/metrics'];

/** Health, readiness, the OpenAPI document and the metrics endpoint (without its token). */
export function systemRequest(): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path: fc.constantFrom(...SYSTEM_PATHS),
      query: unknownEntries,
      method: methodMix('GET', 8, ['HEAD', 'POST', 'OPTIONS']),
      authorization: fc.option(
        fc.oneof(
          headerText,
          headerText.map((t) => `Bearer ${t}`),
        ),
        { freq: 4 },
      ),
    })
    .map(({ path, query, method, authorization }) =>
      printable({
        route: `GET ${path}`,
        method,
        target: `${path}${queryString(query)}`,
        headers: withHeaders({ authorization: authorization ?? undefined }),
        shape: 'system',
        mayBeUnavailable: path === '/api/ready' || path === '/api/health',
      }),
    );
}

/** The explorer's pages with real and hostile addresses and query strings. */
export function pageRequest(corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  const address = (kind: string) =>
    fc
      .oneof(
        {
          arbitrary: parameterText('address', { pattern: '{40}' }, { corpus, valid: true, context: kind }),
          weight: 2,
        },
        { arbitrary: addressText(corpus, kind), weight: 1 },
      )
      .map(percentEncode);
  const page = fc.oneof(
    fc.constant({ route: '/', path: '/' }),
    address('tokens').map((a) => ({ route: '/tokens/{address}', path: `/tokens/${a}` })),
    address('creators').map((a) => ({ route: '/creators/{address}', path: `/creators/${a}` })),
    address('wallets').map((a) => ({ route: '/wallets/{address}', path: `/wallets/${a}` })),
    wireText.map((w) => ({ route: '/tokens/{address}', path: `/tokens/${w}` })),
  );
  const query = fc.oneof(
    unknownEntries,
    knownEntries(['q', 'view', 'tab', 'cursor', 'interval'], (name) =>
      name === 'view' || name === 'tab'
        ? fc.constantFrom('new', 'top', 'near', 'linked', 'trending', 'x', '')
        : name === 'q'
          ? fc.oneof(searchText(corpus).map(percentEncode), wireText)
          : wireText,
    ),
  );
  return fc
    .record({
      page,
      query,
      method: methodMix('GET', 10, ['HEAD']),
    })
    .map(({ page, query, method }) =>
      printable({
        route: `page ${page.route}`,
        method,
        target: `${page.path}${queryString(query)}`,
        shape: 'page',
      }),
    );
}
