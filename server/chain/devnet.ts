import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type AnvilProcess, startAnvil } from './anvil';
import { createDevnetClient, type DevnetClient } from './clients';
import { deployLaunchpad, type LaunchpadDeployment } from './deploy';
import { readDeploymentManifest, writeDeploymentManifest } from './manifest';

export const DEVNET_DEPLOYER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

export interface Devnet {
  anvil: AnvilProcess;
  client: DevnetClient;
  deployment: LaunchpadDeployment;
  /** True when an earlier run's chain was loaded from the state file. */
  resumed: boolean;
}

export interface StartDevnetParameters {
  dataDir: string;
  manifestFile: string;
  port: number;
  blockTime?: number;
  reset?: boolean;
  /** Genesis timestamp for a fresh chain (e.g. two days ago, so history can be simulated). */
  genesisTimestamp?: number;
  log?: (line: string) => void;
}

/**
 * Starts the local devnet: anvil on loopback with its state in $DATA_DIR/anvil-state.json, the
 * launchpad deployed (or resumed from the saved state) and the manifest written for the app.
 * @throws when a saved state no longer matches its manifest (rerun with reset).
 */
export async function startDevnet(p: StartDevnetParameters): Promise<Devnet> {
  const log = p.log ?? (() => {});
  const stateFile = path.join(p.dataDir, 'anvil-state.json');
  if (p.reset) {
    rmSync(stateFile, { force: true });
    rmSync(p.manifestFile, { force: true });
  }
  const manifest = existsSync(stateFile) ? readDeploymentManifest(p.manifestFile) : undefined;
  log(`▶ starting anvil on 127.0.0.1:${p.port} (${p.blockTime ? `${p.blockTime}s blocks` : 'automine'})…`);
  const anvil = await startAnvil({
    port: p.port,
    blockTime: p.blockTime,
    stateFile,
    ...(manifest ? {} : { genesisTimestamp: p.genesisTimestamp }),
  });
  const client = createDevnetClient(31337, anvil.rpcUrl);
  if (manifest) {
    const code = await client.getCode({ address: manifest.deployment.contracts.factory });
    if (!code || code === '0x') {
      await anvil.stop();
      throw new Error(
        `the saved chain state does not contain the factory of ${p.manifestFile}; start again with --reset`,
      );
    }
    log(`▶ resumed the devnet at block ${await client.getBlockNumber()}`);
    writeDeploymentManifest(p.manifestFile, anvil.rpcUrl, manifest.deployment);
    return { anvil, client, deployment: manifest.deployment, resumed: true };
  }
  log('▶ deploying the launchpad and Uniswap V3…');
  const deployment = await deployLaunchpad(client, DEVNET_DEPLOYER);
  writeDeploymentManifest(p.manifestFile, anvil.rpcUrl, deployment);
  log(`  factory ${deployment.contracts.factory} (start block ${deployment.startBlock})`);
  return { anvil, client, deployment, resumed: false };
}
