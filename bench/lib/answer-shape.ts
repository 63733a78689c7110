/**
 * Structural comparison of two JSON answers: the floor must carry the fields Launchdex carries
 * (same keys, same order, same JSON types, nulls included) for the ratio to compare like with
 * like. Arrays compare element by element up to the shorter length, plus their lengths.
 */
export function fieldDifferences(expected: unknown, actual: unknown, path = '$'): string[] {
  const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  if (kind(expected) !== kind(actual)) return [`${path}: ${kind(expected)} vs ${kind(actual)}`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const differences =
      expected.length === actual.length ? [] : [`${path}: ${expected.length} vs ${actual.length} items`];
    for (let index = 0; index < Math.min(expected.length, actual.length); index++) {
      differences.push(...fieldDifferences(expected[index], actual[index], `${path}[${index}]`));
      if (differences.length > 5) break;
    }
    return differences;
  }
  if (kind(expected) !== 'object') return [];
  const a = expected as Record<string, unknown>;
  const b = actual as Record<string, unknown>;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  const differences = [
    ...keysA.filter((key) => !(key in b)).map((key) => `${path}.${key}: missing in the floor`),
    ...keysB.filter((key) => !(key in a)).map((key) => `${path}.${key}: only in the floor`),
  ];
  if (differences.length === 0 && keysA.join() !== keysB.join())
    differences.push(`${path}: keys in another order`);
  for (const key of keysA)
    if (key in b) differences.push(...fieldDifferences(a[key], b[key], `${path}.${key}`));
  return differences;
}

/** Where two texts first differ, with a little context of each, or null when they are equal. */
export function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  const excerpt = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 24), at + 40));
  return `byte ${at}: ${excerpt(a)} vs ${excerpt(b)}`;
}
