import { describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BATCH } from './message';
import { parseBatchSize, parseEventTypes } from './targets';

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

// Rule: --batch is a whole number of events per POST, 1 to MAX_WEBHOOK_BATCH.
describe('parseBatchSize', () => {
  it('accepts 1 to the maximum', () => {
    expect(parseBatchSize('1')).toBe(1);
    expect(parseBatchSize('100')).toBe(100);
    expect(parseBatchSize(String(MAX_WEBHOOK_BATCH))).toBe(MAX_WEBHOOK_BATCH);
  });
  it('refuses zero, negatives, fractions, leading zeros, words and too many', () => {
    for (const bad of [
      '0',
      '-1',
      '1.5',
      '1e2',
      '010',
      ' 5',
      'ten',
      '',
      String(MAX_WEBHOOK_BATCH + 1),
      '99999',
    ])
      expect(parseBatchSize(bad), bad).toBeUndefined();
  });
});
