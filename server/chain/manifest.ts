import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Address } from 'viem';
import { z } from 'zod';
import { ADDRESS_PATTERN } from '../../shared/address';
import type { LaunchpadDeployment } from './deploy';

const address = z.string().regex(new RegExp(ADDRESS_PATTERN)) as unknown as z.ZodType<Address>;

const manifestSchema = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string(),
  startBlock: z.number().int().nonnegative(),
  contracts: z.object({
    factory: address,
    graduator: address,
    stable: address,
    uniswapV3Factory: address,
    router: address,
  }),
  parameters: z.object({
    virtualTokenBps: z.number(),
    curveSupplyBps: z.number(),
    initialVirtualReserve: z.string(),
    graduationThreshold: z.string(),
    protocolFeeBps: z.number(),
    creatorFeeBps: z.number(),
    protocolFeeRecipient: address,
  }),
  deployedAt: z.string(),
});

export interface DeploymentManifestFile {
  rpcUrl: string;
  deployment: LaunchpadDeployment;
}

/** Writes the devnet manifest atomically (temp file + rename), so a reader never sees half of it. */
export function writeDeploymentManifest(file: string, rpcUrl: string, deployment: LaunchpadDeployment): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const body = {
    chainId: deployment.chainId,
    rpcUrl,
    startBlock: deployment.startBlock,
    contracts: deployment.contracts,
    parameters: {
      ...deployment.parameters,
      initialVirtualReserve: deployment.parameters.initialVirtualReserve.toString(),
      graduationThreshold: deployment.parameters.graduationThreshold.toString(),
    },
    deployedAt: new Date().toISOString(),
  };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(body, null, 2)}\n`);
  renameSync(temp, file);
}

/** Reads a manifest written by {@link writeDeploymentManifest}; undefined when there is none. */
export function readDeploymentManifest(file: string): DeploymentManifestFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = manifestSchema.parse(JSON.parse(text));
  return {
    rpcUrl: parsed.rpcUrl,
    deployment: {
      chainId: parsed.chainId,
      startBlock: parsed.startBlock,
      contracts: parsed.contracts,
      parameters: {
        ...parsed.parameters,
        initialVirtualReserve: BigInt(parsed.parameters.initialVirtualReserve),
        graduationThreshold: BigInt(parsed.parameters.graduationThreshold),
      },
    },
  };
}
