/**
 * `npm run devnet`: a local anvil chain on loopback with the launchpad and Uniswap V3 deployed,
 * and the deployment manifest the app reads ($DATA_DIR/deployment.json). Chain state persists in
 * $DATA_DIR/anvil-state.json, so a rerun resumes the same chain; `--reset` starts over.
 *
 *   npm run devnet [-- --block-time 2] [-- --reset]
 */
import { parseArgs } from 'node:util';
import { startDevnet } from '../server/chain/devnet';
import { loadConfigOrExit } from './cli';

const { values } = parseArgs({
  options: { 'block-time': { type: 'string' }, reset: { type: 'boolean', default: false } },
});
const config = loadConfigOrExit();
const blockTime = values['block-time'] === undefined ? undefined : Number(values['block-time']);
if (blockTime !== undefined && !(blockTime > 0)) {
  console.error('--block-time must be a positive number of seconds');
  process.exit(1);
}

let devnet: Awaited<ReturnType<typeof startDevnet>>;
try {
  devnet = await startDevnet({
    dataDir: config.dataDir,
    manifestFile: config.deploymentManifestPath,
    port: config.devnetPort,
    blockTime,
    reset: values.reset,
    log: console.log,
  });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
console.log(`\n  devnet RPC: ${devnet.anvil.rpcUrl} (chain 31337). Ctrl-C to stop.\n`);

const stop = async () => {
  console.log('stopping anvil (saving state)…');
  await devnet.anvil.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
devnet.anvil.process.on('exit', (code) => {
  console.error(`anvil exited (${code})`);
  process.exit(code ?? 1);
});
