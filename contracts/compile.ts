import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const srcDir = path.join(import.meta.dirname, 'src');

/** Contracts whose ABI and bytecode the app and scripts use. */
export const contractNames = [
  'WrappedStable',
  'LaunchToken',
  'BondingCurve',
  'LaunchFactory',
  'Graduator',
  'DevSwapRouter',
  'BenchSpammer',
  'BundleBuyer',
] as const;
export type ContractName = (typeof contractNames)[number];

export interface CompiledContract {
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts: Record<
    string,
    Record<
      string,
      { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
}

/** Resolves `@openzeppelin/...` and `@uniswap/v3-core/...` imports from node_modules. */
function findImport(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(importPath), 'utf8') };
  } catch {
    return { error: `import not found: ${importPath}` };
  }
}

/**
 * Compiles every source in contracts/src with the pinned solc (wasm; no download).
 * @throws with solc's formatted messages on any compile error.
 */
export function compileContracts(): Record<string, CompiledContract> {
  const solc = require('solc') as { compile(input: string, options: { import: typeof findImport }): string };
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(srcDir).filter((f) => f.endsWith('.sol'))) {
    sources[file] = { content: readFileSync(path.join(srcDir, file), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      viaIR: true,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const result: Record<string, CompiledContract> = {};
  for (const fileContracts of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(fileContracts)) {
      result[name] = {
        abi: contract.abi,
        bytecode: contract.evm.bytecode.object,
        deployedBytecode: contract.evm.deployedBytecode.object,
      };
    }
  }
  return result;
}
