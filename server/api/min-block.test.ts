import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { parseMinBlock } from './min-block';

const query = (text: string) => new URLSearchParams(text);

describe('a client’s min_block / X-Min-Indexed-Block', () => {
  it('is absent when neither is sent, and the higher of the two when both are', () => {
    expect(parseMinBlock(null, query(''))).toBeUndefined();
    expect(parseMinBlock(undefined, query('min_block=12'))).toBe(12);
    expect(parseMinBlock(' 40 ', query(''))).toBe(40);
    expect(parseMinBlock('40', query('min_block=12'))).toBe(40);
    expect(parseMinBlock('7', query('min_block=12'))).toBe(12);
    expect(parseMinBlock(['5'], undefined)).toBe(5);
  });

  it('refuses anything but one non-negative integer in each, as invalid_parameter', () => {
    const refused = (header: string | string[] | null, text: string) => {
      try {
        parseMinBlock(header, query(text));
      } catch (error) {
        return error instanceof AppError ? error.code : 'other';
      }
      return 'accepted';
    };
    for (const bad of [
      '-1',
      '',
      'x',
      '1.5',
      '1e3',
      '0x10',
      '99999999999999999',
      '01',
      '00',
      '+1',
      ' 1',
      '1 ',
    ])
      expect(refused(null, `min_block=${encodeURIComponent(bad)}`), bad).toBe('invalid_parameter');
    for (const bad of ['01', '+1', '-0', '1 2'])
      expect(refused(bad, ''), `header ${bad}`).toBe('invalid_parameter');
    expect(refused(null, 'min_block=0')).toBe('accepted');
    expect(refused(null, 'min_block=1&min_block=2')).toBe('invalid_parameter');
    expect(refused('1, 2', '')).toBe('invalid_parameter');
    expect(refused(['1', '2'], '')).toBe('invalid_parameter');
    expect(refused('abc', '')).toBe('invalid_parameter');
  });
});
