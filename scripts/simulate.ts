/**
 * `npm run simulate`: seeded launchpad activity against the devnet of `npm run devnet`.
 *
 *   npm run simulate -- --seed 1 --launches 50            fixture: N launches, then a ledger
 *   npm run simulate -- --seed 1 --launches 50 --ledger x.json
 *   npm run simulate -- --live --rate 2                   forever, about 2 actions per second
 */

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDevnetClient } from '../server/chain/clients';
import { readDeploymentManifest } from '../server/chain/manifest';
import { createSimulator } from '../server/chain/simulator/simulator';
import { loadConfigOrExit } from './cli';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    launches: { type: 'string', default: '20' },
    actions: { type: 'string' },
    ledger: { type: 'string' },
    live: { type: 'boolean', default: false },
    rate: { type: 'string', default: '1' },
  },
});

const positiveInt = (name: string, value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 0) {
    console.error(`--${name} must be a non-negative integer`);
    process.exit(1);
  }
  return Number(value);
};

const config = loadConfigOrExit();
const manifest = readDeploymentManifest(config.deploymentManifestPath);
if (!manifest) {
  console.error(`No devnet manifest at ${config.deploymentManifestPath}: start \`npm run devnet\` first.`);
  process.exit(1);
}
const client = createDevnetClient(manifest.deployment.chainId, manifest.rpcUrl);
const seed = positiveInt('seed', values.seed);
const launches = positiveInt('launches', values.launches);

if (values.live) {
  const rate = Number(values.rate);
  if (!(rate > 0)) {
    console.error('--rate must be a positive number of actions per second');
    process.exit(1);
  }
  const simulator = createSimulator({ client, deployment: manifest.deployment, seed, advanceTime: false });
  console.log(`▶ live simulation (seed ${seed}, ~${rate} actions/s). Ctrl-C to stop.`);
  let done = 0;
  for (;;) {
    const started = Date.now();
    await simulator.step(Number.MAX_SAFE_INTEGER);
    done++;
    if (done % 25 === 0) console.log(`  ${done} actions · ${JSON.stringify(simulator.summary)}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 / rate - (Date.now() - started))));
  }
}

const actions = values.actions === undefined ? launches * 10 : positiveInt('actions', values.actions);
const simulator = createSimulator({ client, deployment: manifest.deployment, seed, advanceTime: true });
const started = Date.now();
console.log(`▶ fixture simulation: seed ${seed}, ${launches} launches, ~${actions} actions`);
const ledger = await simulator.runFixture({
  launches,
  actions,
  onProgress: (done, total) => {
    if (done % 100 === 0) console.log(`  ${done}/${total} actions…`);
  },
});
const ledgerFile = path.resolve(
  values.ledger ?? path.join(config.dataDir, `simulator-ledger-seed${seed}.json`),
);
writeFileSync(ledgerFile, `${JSON.stringify(ledger, null, 2)}\n`);
const s = ledger.summary;
console.log(
  `✔ ${ledger.actions.length} transactions in ${((Date.now() - started) / 1000).toFixed(1)}s: ${s.launches} launches, ${s.curveBuys} curve buys, ${s.curveSells} sells, ${s.transfers} transfers, ${s.graduations} graduations, ${s.dexSwaps} DEX swaps (blocks ${ledger.startBlock}-${ledger.endBlock})`,
);
console.log(`  ledger: ${path.relative(process.cwd(), ledgerFile)}`);
