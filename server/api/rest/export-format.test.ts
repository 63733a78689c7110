import { describe, expect, it } from 'vitest';
import { asksForCsv, formatParam } from './export-format';

describe('which format a request asks for', () => {
  it('format decides when given, whatever Accept says', () => {
    expect(asksForCsv('csv', undefined)).toBe(true);
    expect(asksForCsv('csv', 'application/json')).toBe(true);
    expect(asksForCsv('json', 'text/csv')).toBe(false);
  });

  it('without format, Accept picks CSV only when it names text/csv above any explicit JSON range', () => {
    const csv = [
      'text/csv',
      'TEXT/CSV',
      'text/csv; charset=utf-8',
      'text/csv, */*;q=0.8',
      '*/*, text/csv',
      'application/json;q=0.5, text/csv',
      'application/*;q=0.2, text/csv;q=0.3',
      'text/csv;q=0.001',
    ];
    for (const accept of csv) expect(asksForCsv(undefined, accept), accept).toBe(true);
    const json = [
      undefined,
      '',
      '*/*',
      'text/*',
      'application/json',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      // A tie with an explicit JSON range goes to JSON, the API's own format.
      'application/json, text/csv',
      'text/csv;q=0.5, application/json',
      'text/csv;q=0.5, application/*',
      'text/csv;q=0',
      'text/csv;q=0.000',
      // A q that is no qvalue counts as 0.
      'text/csv;q=2',
      'text/csv;q=-1',
      'text/csv;q=abc',
      'text/csvx',
    ];
    for (const accept of json) expect(asksForCsv(undefined, accept), String(accept)).toBe(false);
  });

  it('format takes json or csv only, case and spelling exact', () => {
    expect(formatParam.parse(undefined)).toBeUndefined();
    expect(formatParam.parse('json')).toBe('json');
    expect(formatParam.parse('csv')).toBe('csv');
    for (const bad of ['CSV', 'Csv', 'xml', '', ' csv', 'csv ', 'text/csv', 'tsv'])
      expect(() => formatParam.parse(bad), bad).toThrow('format must be one of json, csv');
  });
});
