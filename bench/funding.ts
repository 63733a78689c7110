/**
 * `npm run bench:funding`: the funding check's worst case (docs/benchmarks.md, "Funding check"): a
 * creator pays `--wallets` wallets in one block, and each of them then buys once, spread over the
 * next 290 blocks, under the default label parameters (2 hops, 300 blocks). The check is the fold's
 * own (project/funding.ts) over blocks already read; reading them is the RPC's part, linear in
 * blocks, measured by `npm run bench:indexer`.
 *
 *   npm run bench:funding -- [--wallets 1000,10000,30000]
 */
import { parseArgs } from 'node:util';
import { type FirstBuy, type FundingBlock, fundedBefore } from '../server/indexer/project/funding';
import { defaultLabelParams } from '../server/indexer/project/traders';

const { values } = parseArgs({ options: { wallets: { type: 'string', default: '1000,10000,30000' } } });
const counts = values.wallets.split(',').map(Number);
if (counts.some((n) => !Number.isSafeInteger(n) || n <= 0))
  throw new Error(`--wallets takes whole numbers separated by commas, not ${values.wallets}`);

const address = (kind: number, n: number) => `0x${kind.toString(16)}${n.toString(16).padStart(39, '0')}`;
const creator = address(12, 0);
const params = {
  fundingHops: defaultLabelParams.fundingHops,
  fundingWindowBlocks: defaultLabelParams.fundingWindowBlocks,
};

for (const wallets of counts) {
  // Block 100: the creator pays every wallet; every other block: one payment between strangers.
  const blocks = new Map<number, FundingBlock>();
  for (let n = 0; n <= 400; n++)
    blocks.set(n, {
      number: n,
      hash: `0x${n}`,
      parentHash: `0x${n - 1}`,
      transfers:
        n === 100
          ? Array.from({ length: wallets }, (_, i) => ({ from: creator, to: address(10, i), index: i }))
          : [{ from: address(13, n), to: address(14, n), index: 0 }],
    });
  const buys: FirstBuy[] = Array.from({ length: wallets }, (_, i) => ({
    token: address(15, 0),
    wallet: address(10, i),
    creator,
    block: 101 + Math.floor((i * 290) / wallets),
    transactionIndex: 1,
  }));
  const blockAt = (n: number) => blocks.get(n) as FundingBlock;
  const started = performance.now();
  let funded = 0;
  for (const buy of buys) if (fundedBefore(buy, params, blockAt)) funded++;
  const seconds = (performance.now() - started) / 1000;
  if (funded !== wallets) throw new Error(`${funded} of ${wallets} first buys found funded`);
  console.log(
    `▶ ${wallets} wallets paid by the creator, each buying once: checked in ${seconds.toFixed(3)} s (${((seconds * 1e6) / wallets).toFixed(1)} µs a buy), every one funded`,
  );
}
