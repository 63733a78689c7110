import { z } from 'zod';
import { addressParam } from './common';
import { withHint } from './openapi-hints';

/**
 * Where a stream client resumes: it holds every event through `block`, as the index stood at
 * entry `seq` of its change log. The seq is what lets the server tell a client that blocks it
 * holds were replaced while it was away (docs/api.md, "Live stream", Resume). Ids of earlier
 * versions are a bare block number: `seq` undefined, resumed as before (no reorg check).
 */
export interface ResumeToken {
  block: number;
  seq: number | undefined;
  /** The id of the database that issued it (absent in ids of earlier versions). */
  database?: string | undefined;
}

/**
 * `<block>-<seq>-<database>`, or the earlier `<block>-<seq>` and bare `<block>`: canonical decimal
 * text of at most 15 digits each, the database's id as 8 hex digits.
 */
export const RESUME_TOKEN_PATTERN = '^(0|[1-9][0-9]{0,14})(-(0|[1-9][0-9]{0,14})(-([0-9a-f]{8}))?)?$';
const resumeTokenPattern = new RegExp(RESUME_TOKEN_PATTERN);

/** The token a resume point is sent as (the SSE `id:`). */
export function formatResumeToken(block: number, seq: number, database: string): string {
  return database === '' ? `${block}-${seq}` : `${block}-${seq}-${database}`;
}

/** The resume point an id or `since` names; undefined when it is no id this stream sends. */
export function parseResumeToken(text: string): ResumeToken | undefined {
  const match = resumeTokenPattern.exec(text);
  if (!match) return undefined;
  return {
    block: Number(match[1]),
    seq: match[3] === undefined ? undefined : Number(match[3]),
    database: match[5],
  };
}

const sinceMessage =
  'since must be a stream id: a block number, or <block>-<seq>-<database> as the stream sends (decimal, no leading zeros)';

/** The query of `GET /api/v1/stream`: malformed is a 400 in the REST error shape, never ignored. */
export const streamQuery = z.object({
  token: addressParam.optional(),
  since: withHint(
    z
      .string()
      .transform((value, context) => {
        const token = parseResumeToken(value);
        if (!token) context.addIssue({ code: 'custom', message: sinceMessage });
        return token ?? { block: 0, seq: undefined };
      })
      .optional(),
    {
      type: 'string',
      pattern: RESUME_TOKEN_PATTERN,
      description: 'Resume after this stream id (as Last-Event-ID does).',
    },
  ),
});
