import { ADDRESS_PATTERN } from '../../shared/address';
import { RESUME_TOKEN_PATTERN } from '../../shared/api/stream';
import { liveEventTypes } from '../../shared/stream/events';

/**
 * The stream's entry in the OpenAPI document. It is not a JSON route of the REST registry (its
 * body is an event stream), so it is described here, beside its implementation.
 */
export const streamOperation = {
  operationId: 'streamEvents',
  summary: 'Live launches, trades and graduations (server-sent events)',
  description: `A \`text/event-stream\` of events as the index advances: ${liveEventTypes.map((t) => `\`${t}\``).join(', ')}. Events arrive in chain order; a \`checkpoint\` follows every event of the blocks it covers. Every reorg is signalled: when blocks a client was sent are rolled back (even when the index is past them again by the next poll, or the client was away), it gets one \`reorg\` whose \`indexed_through_block\` is the lowest block that stayed (drop every event of a later block), then the canonical events after it, then a \`checkpoint\`. The \`id:\` of \`checkpoint\`, \`reorg\` and \`reset\` is a resume id \`<block>-<seq>-<database>\`: everything through \`block\`, as of entry \`seq\` of the change log of that database (an id of another database gets \`reset\`). Reconnect with \`Last-Event-ID\` (or \`since\`) to replay what was missed (a \`reorg\` first if blocks you hold were replaced meanwhile): up to 1,000 blocks back and as many events as fit half of the client queue, else one \`reset\` carrying the current position as its id (refetch, then resume from there). A bare block number (the id of earlier versions) still resumes from that block, without the reorg check. A \`: ping\` comment is sent every 15 s. See docs/api.md, "Live stream".`,
  tags: ['stream'],
  parameters: [
    {
      name: 'token',
      in: 'query',
      required: false,
      description: "Only this token's launch, trade and graduation events (checkpoints always).",
      schema: { type: 'string', pattern: ADDRESS_PATTERN },
    },
    {
      name: 'since',
      in: 'query',
      required: false,
      description:
        'Resume after this stream id (as Last-Event-ID does; Last-Event-ID wins when both are sent): `<block>-<seq>-<database>` as the stream sends it (or `<block>-<seq>`, a bare block number, from earlier versions). Decimal digits without leading zeros; anything else is `400 invalid_parameter`.',
      schema: { type: 'string', pattern: RESUME_TOKEN_PATTERN, examples: ['18234-977-3fa85f64'] },
    },
    {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description:
        'Sent by EventSource on reconnect: the id of the last `checkpoint`, `reorg` or `reset` received (`<block>-<seq>-<database>`; `<block>-<seq>` or a bare block number from earlier versions). A value that is no such id gets one `reset` of the current position instead of a replay, not a 400: EventSource gives up for good on an error answer, and the reset gives it an id to resume from.',
      schema: { type: 'string', pattern: RESUME_TOKEN_PATTERN },
    },
  ],
  responses: {
    '200': { description: 'Event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
    '400': {
      description:
        'Error: `invalid_address` (`token`), `invalid_parameter` (`since`, or a parameter given twice)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
    '503': {
      description: 'Error: `unavailable` (connection limit of this instance; see Retry-After)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  },
} as const;
