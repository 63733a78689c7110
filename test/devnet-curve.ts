import type { CurveState } from '../shared/chain/curve-math';
import { WAD } from '../shared/units';

/**
 * A fresh curve with the devnet's parameters (server/chain/deploy.ts): 30 native virtual reserve,
 * 80 native to graduate, 1 % protocol + 0.5 % creator fees.
 */
export const devnetLaunchCurve: CurveState = {
  virtualTokenReserve: 1_073_000_000n * WAD,
  virtualReserve: 30n * WAD,
  realTokenReserve: 793_100_000n * WAD,
  realReserve: 0n,
  graduationThreshold: 80n * WAD,
  protocolFeeBps: 100n,
  creatorFeeBps: 50n,
};
