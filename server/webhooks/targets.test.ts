import { describe, expect, it } from 'vitest';
import { parseEventTypes } from './targets';

// Rule: --events names event types only, in any order, without repeats.
describe('parseEventTypes', () => {
  it('keeps the known types in canonical order', () => {
    expect(parseEventTypes('graduation, trade,trade')).toEqual(['trade', 'graduation']);
    expect(parseEventTypes('launch')).toEqual(['launch']);
  });
  it('refuses unknown or empty lists', () => {
    expect(parseEventTypes('trade,swap')).toBeUndefined();
    expect(parseEventTypes(' , ')).toBeUndefined();
    expect(parseEventTypes('retraction')).toBeUndefined();
  });
});
