import type { Address, Hash } from 'viem';

/**
 * What the simulator did, written for tests to compare the indexer against. Every amount is
 * decimal text; every log carries its provenance. Decoded with viem's generic decoder, not the
 * indexer's, so a decoding bug in one cannot hide in the other.
 */
export interface Ledger {
  version: 1;
  seed: number;
  chainId: number;
  contracts: Record<string, Address>;
  startBlock: number;
  endBlock: number;
  actions: LedgerAction[];
  summary: LedgerSummary;
}

/**
 * `fund`: native coin paid to a wallet (no token: the zero address); `bundle`: one curve buy by a
 * contract whose tokens went to several wallets (server/chain/simulator/insiders.ts).
 */
export type ActionKind = 'launch' | 'buy' | 'sell' | 'transfer' | 'dex_buy' | 'dex_sell' | 'fund' | 'bundle';

export interface LedgerAction {
  index: number;
  kind: ActionKind;
  actor: Address;
  token: Address;
  transactionHash: Hash;
  blockNumber: number;
  blockTimestamp: number;
  logs: LedgerLog[];
}

export interface LedgerLog {
  address: Address;
  eventName: string;
  logIndex: number;
  transactionIndex: number;
  args: Record<string, string | boolean>;
}

export interface LedgerSummary {
  launches: number;
  curveBuys: number;
  curveSells: number;
  transfers: number;
  graduations: number;
  dexSwaps: number;
  /** Insider moves (insiders.ts): payments, funded snipes, bundles, moves then sells, swaps for another. */
  insiders: number;
}
