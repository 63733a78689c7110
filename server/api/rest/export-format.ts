import { z } from 'zod';
import { withHint } from '../../../shared/api/openapi-hints';

/** The media type of an export's body (docs/api.md, "CSV exports"). */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

export const exportFormats = ['json', 'csv'] as const;

/** `format` of a route that exports: `json` (absent: the default, or what Accept asks for) or `csv`. */
export const formatParam = withHint(
  z.enum(exportFormats, { error: `format must be one of ${exportFormats.join(', ')}` }).optional(),
  {
    type: 'string',
    enum: [...exportFormats],
    default: 'json',
    description:
      '`csv`: the whole list (not one page) as `text/csv`, as `Accept: text/csv` asks for it; `format` wins over Accept.',
  },
);

/**
 * Whether a request asks for the CSV export: `format=csv`, or without `format` an Accept header
 * that names `text/csv` (q > 0) with no explicit JSON range (`application/json`,
 * `application/*`) of equal or higher q. A wildcard (`*\/*`) never outranks the `text/csv` it
 * sits beside, and a tie with an explicit JSON range goes to JSON, the API's own format.
 * @example asksForCsv(undefined, 'text/csv, application/json;q=0.5') // true
 */
export function asksForCsv(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'csv';
  if (accept === undefined) return false;
  const lower = accept.toLowerCase();
  if (!lower.includes('text/csv')) return false;
  let csv = 0;
  let json = 0;
  for (const range of lower.split(',')) {
    const [type = '', ...parameters] = range.split(';');
    const q = quality(parameters);
    const mediaType = type.trim();
    if (mediaType === 'text/csv') csv = Math.max(csv, q);
    else if (mediaType === 'application/json' || mediaType === 'application/*') json = Math.max(json, q);
  }
  return csv > 0 && csv > json;
}

/** A range's q (RFC 9110 section 12.4.2): 1 when absent, 0 when it is no valid qvalue. */
function quality(parameters: string[]): number {
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim() !== 'q') continue;
    const q = Number(value?.trim());
    return /^\s*(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/.test(value ?? '') ? q : 0;
  }
  return 1;
}
