import { ADDRESS_PATTERN } from '../../shared/address';
import { liveEventTypes } from '../../shared/stream/events';

/**
 * The stream's entry in the OpenAPI document. It is not a JSON route of the REST registry (its
 * body is an event stream), so it is described here, beside its implementation.
 */
export const streamOperation = {
  operationId: 'streamEvents',
  summary: 'Live launches, trades and graduations (server-sent events)',
  description: `A \`text/event-stream\` of events as the index advances: ${liveEventTypes.map((t) => `\`${t}\``).join(', ')}. Events arrive in chain order; a \`checkpoint\` (with \`id:\` = block) follows every event of the blocks it covers. Reconnect with \`Last-Event-ID\` (or \`since\`) to replay what was missed: up to 1,000 blocks back and as many events as fit half of the client queue, else one \`reset\` carrying the current block as its id (refetch, then resume from there). A \`: ping\` comment is sent every 15 s. See docs/api.md, "Live stream".`,
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
        'Resume after this block (as Last-Event-ID does; Last-Event-ID wins when both are sent). Decimal digits without leading zeros; anything else is `400 invalid_parameter`.',
      schema: { type: 'integer', minimum: 0 },
    },
    {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description:
        'Sent by EventSource on reconnect: the id of the last `checkpoint`, `reorg` or `reset` received (a block number). A value that is no block number this stream sends (not decimal digits without leading zeros) gets one `reset` of the current block instead of a replay, not a 400: EventSource gives up for good on an error answer, and the reset gives it an id to resume from.',
      schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' },
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
