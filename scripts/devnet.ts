/**
 * `npm run devnet`: a local anvil chain on loopback with the launchpad and Uniswap V3 deployed,
 * and the deployment manifest the app reads ($DATA_DIR/deployment.json). Chain state persists in
 * $DATA_DIR/anvil-state.json, so a rerun resumes the same chain; `--reset` starts over.
 *
 *   npm run devnet [-- --block-time 2] [-- --reset]
 */

import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startAnvil } from '../server/chain/anvil';
import { createDevnetClient } from '../server/chain/clients';
import { deployLaunchpad } from '../server/chain/deploy';
import { readDeploymentManifest, writeDeploymentManifest } from '../server/chain/manifest';
import { loadConfigOrExit } from './cli';

const { values } = parseArgs({
  options: { 'block-time': { type: 'string' }, reset: { type: 'boolean', default: false } },
});

const config = loadConfigOrExit();

const stateFile = path.join(config.dataDir, 'anvil-state.json');
const manifestFile = config.deploymentManifestPath;
if (values.reset) {
  rmSync(stateFile, { force: true });
  rmSync(manifestFile, { force: true });
}
const blockTime = values['block-time'] === undefined ? undefined : Number(values['block-time']);
if (blockTime !== undefined && !(blockTime > 0)) {
  console.error('--block-time must be a positive number of seconds');
  process.exit(1);
}

const resuming = existsSync(stateFile) && readDeploymentManifest(manifestFile) !== undefined;
console.log(
  `▶ starting anvil on 127.0.0.1:${config.devnetPort} (${blockTime ? `${blockTime}s blocks` : 'automine'})…`,
);
const anvil = await startAnvil({ port: config.devnetPort, blockTime, stateFile });
const client = createDevnetClient(31337, anvil.rpcUrl);

if (resuming) {
  const manifest = readDeploymentManifest(manifestFile);
  const code = manifest
    ? await client.getCode({ address: manifest.deployment.contracts.factory })
    : undefined;
  if (!code || code === '0x') {
    console.error(
      `The saved chain state does not contain the factory in ${manifestFile}; rerun with --reset.`,
    );
    await anvil.stop();
    process.exit(1);
  }
  console.log(
    `▶ resumed the devnet from ${path.relative(process.cwd(), stateFile)} at block ${await client.getBlockNumber()}`,
  );
} else {
  console.log('▶ deploying the launchpad and Uniswap V3…');
  const deployer = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
  const deployment = await deployLaunchpad(client, deployer);
  writeDeploymentManifest(manifestFile, anvil.rpcUrl, deployment);
  console.log(`  factory ${deployment.contracts.factory} (start block ${deployment.startBlock})`);
  console.log(`  manifest ${path.relative(process.cwd(), manifestFile)}`);
}
console.log(`\n  devnet RPC: ${anvil.rpcUrl} (chain 31337). Ctrl-C to stop.\n`);

const stop = async () => {
  console.log('stopping anvil (saving state)…');
  await anvil.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
anvil.process.on('exit', (code) => {
  console.error(`anvil exited (${code})`);
  process.exit(code ?? 1);
});
