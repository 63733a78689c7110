/**
 * Events of GET /api/v1/stream, as the browser receives them (amounts as decimal text). This
 * module is imported by client code: types and pure helpers only.
 */

export interface LaunchEventData {
  address: string;
  name: string;
  symbol: string;
  creator: string;
  created_at: number;
  block_number: number;
  transaction_hash: string;
  log_index: number;
}

export interface TradeEventData {
  token_address: string;
  trader: string;
  side: 'buy' | 'sell';
  source: 'curve' | 'dex_v3';
  token_amount: string;
  reserve_amount: string;
  curve_value: string;
  protocol_fee: string;
  creator_fee: string;
  block_number: number;
  block_timestamp: number;
  transaction_index: number;
  transaction_hash: string;
  log_index: number;
}

export interface GraduationEventData {
  token_address: string;
  pool_address: string;
  block_number: number;
  block_timestamp: number;
  transaction_hash: string;
  log_index: number;
}

/**
 * `id` is the SSE id of checkpoint, reorg and reset (the resume token, docs/api.md "Live
 * stream"): what EventSource sends back as Last-Event-ID. Not part of `data`.
 */
export type LiveEvent =
  | { type: 'launch'; data: LaunchEventData }
  | { type: 'trade'; data: TradeEventData }
  | { type: 'graduation'; data: GraduationEventData }
  /** The index advanced to this block; every event of the blocks up to it was sent before. */
  | { type: 'checkpoint'; data: { indexed_through_block: number }; id?: string }
  /**
   * Blocks after this one were replaced (a chain reorganization was repaired): drop every event
   * of a later block; the canonical ones follow, then a checkpoint.
   */
  | { type: 'reorg'; data: { indexed_through_block: number }; id?: string }
  /** Events were skipped (too many at once, or a resume from too far back): refetch. */
  | { type: 'reset'; data: { indexed_through_block: number; reason: string }; id?: string }
  /** The client fell too far behind and is disconnected; it reconnects and resumes. */
  | { type: 'overflow'; data: { reason: string } };

export type LiveEventType = LiveEvent['type'];

export const liveEventTypes: readonly LiveEventType[] = [
  'launch',
  'trade',
  'graduation',
  'checkpoint',
  'reorg',
  'reset',
  'overflow',
];

/** The token an event concerns, for the `token=` filter; null for stream-wide events. */
export function eventToken(event: LiveEvent): string | null {
  switch (event.type) {
    case 'launch':
      return event.data.address;
    case 'trade':
    case 'graduation':
      return event.data.token_address;
    default:
      return null;
  }
}

/**
 * Whether a stream narrowed to `token` (lowercase; undefined for the whole stream) carries the
 * event: stream-wide events always pass.
 */
export function passesTokenFilter(event: LiveEvent, token: string | undefined): boolean {
  if (token === undefined) return true;
  const own = eventToken(event);
  return own === null || own === token;
}
