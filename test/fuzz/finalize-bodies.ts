import fc from 'fast-check';
import type { Corpus } from './corpus';
import { addressText } from './identifiers';
import type { JsonSchema } from './targets';
import { hostileText } from './text';

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** Finalize bodies: well-formed ones over real launches, random JSON shapes, broken JSON. */
export function finalizeBody(corpus: Corpus, schema: JsonSchema | undefined) {
  const launch = fc.constantFrom(
    ...(corpus.launches.length > 0
      ? corpus.launches
      : [{ token: `0x${'1'.repeat(40)}`, transaction: `0x${'2'.repeat(64)}` }]),
  );
  const hexBytes = (min: number, max: number) =>
    fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  const field = (text: fc.Arbitrary<string>) =>
    fc.oneof(
      { arbitrary: text, weight: 6 },
      { arbitrary: hostileText, weight: 1 },
      { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
    );
  const shaped = fc
    .record({
      launch,
      token: fc.option(addressText(corpus), { freq: 4 }),
      signature: fc.oneof(hexBytes(65, 65), hexBytes(0, 140), fc.constant('0x')),
      extra: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    })
    .chain(({ launch, token, signature, extra }) =>
      fc.record(
        {
          ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, fc.constant(v)])),
          token_address: field(fc.constant(token ?? launch.token)),
          transaction_hash: field(fc.oneof(fc.constant(launch.transaction), hexBytes(32, 32))),
          signature: field(fc.constant(signature)),
        },
        { requiredKeys: [] },
      ),
    )
    .map((value) => JSON.stringify(value));
  const properties = Object.keys((schema?.properties ?? {}) as object);
  const raw = fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '{}',
      'null',
      '[]',
      '"x"',
      '1',
      'true',
      '{"token_address":',
      '\ufeff{}',
      `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
      `{"a":"${'x'.repeat(17_000)}"}`,
    ),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc
      .dictionary(fc.constantFrom(...properties, 'x'), fc.jsonValue({ maxDepth: 2 }))
      .map((v) => JSON.stringify(v)),
    hostileText,
  );
  return fc
    .record({
      text: fc.oneof({ arbitrary: shaped, weight: 5 }, { arbitrary: raw, weight: 3 }),
      type: fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 8 },
        {
          arbitrary: fc.constantFrom(
            'application/json; charset=utf-8',
            'APPLICATION/JSON',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/jsonx',
            '',
          ),
          weight: 2,
        },
      ),
    })
    .map(({ text, type }) => ({
      headers: type === '' ? ({} as Record<string, string>) : { 'content-type': type },
      body: utf8(text),
    }));
}
