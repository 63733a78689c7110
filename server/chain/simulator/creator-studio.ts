import { setTimeout as sleep } from 'node:timers/promises';
import { type Address, keccak256, parseEventLogs, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { postFinalize, uploadDraft } from '../../../shared/launch/launch-api';
import { type LaunchServices, runLaunch } from '../../../shared/launch/launch-flow';
import type { ValidLaunch } from '../../../shared/launch/launch-form-rules';
import { finalizeDomain, finalizeTypes } from '../../../shared/metadata/finalize-message';
import { WAD } from '../../../shared/units';
import { launchFactoryAbi } from '../abis';
import type { DevnetClient } from '../clients';
import type { LaunchpadDeployment } from '../deploy';
import { tokenLogo } from './token-logo';

/** Tokens the studio's creators launch, in order; past the end the list repeats with a number. */
const catalog = [
  {
    name: 'Harbor Light',
    symbol: 'HARBR',
    description: 'A lighthouse for the harbour district. Every trade keeps the lamp lit (claims unverified).',
  },
  {
    name: 'Aurora Finch',
    symbol: 'FINCH',
    description: 'A community token for bird watchers. Every trade funds a nest box (claims unverified).',
  },
  {
    name: 'Paper Crane',
    symbol: 'CRANE',
    description: 'A thousand folds, one token. Made for the origami club.',
  },
  { name: 'Night Market', symbol: 'NIGHT', description: 'Street food, lanterns and a bonding curve.' },
  { name: 'Glacier Mint', symbol: 'GLCR', description: 'Cool, slow and steady. No roadmap, no promises.' },
  { name: 'Copper Kettle', symbol: 'KETTL', description: 'Tea-time token for the afternoon crowd.' },
  {
    name: 'Quiet Orbit',
    symbol: 'ORBIT',
    description: 'A small satellite of a token, circling the launchpad.',
  },
  {
    name: 'Salt & Pine',
    symbol: 'PINE',
    description: 'Coastal forest vibes. Creator-supplied text, unverified.',
  },
] as const;

export interface CreatorStudioOptions {
  /** Where the API is, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  client: DevnetClient;
  deployment: LaunchpadDeployment;
  /** Varies the creators' keys, so studios of different runs do not share wallets. */
  seed: string;
  /** Catalog position of the first launch, so a resumed devnet does not repeat its names. */
  startAt?: number;
  /** Reports finalize waits and other steps; silent by default. */
  log?: (line: string) => void;
}

export interface StudioLaunch {
  token: Address;
  creator: Address;
  name: string;
  symbol: string;
}

/**
 * Creators on the devnet who launch the way a person does on /launch: a metadata draft with a
 * logo, description and links uploaded to the API, the launch transaction carrying the draft's
 * metadataHash, the creator's EIP-712 Finalize signature, and finalize retried while the index
 * catches up. It drives the same launch flow as the page (`runLaunch`), with keys instead of a
 * browser wallet, so the living market has tokens with images and links.
 */
export function createCreatorStudio(options: CreatorStudioOptions) {
  const { baseUrl, client, deployment } = options;
  const chainId = deployment.chainId;
  const api: typeof fetch = (input, init) => fetch(new URL(String(input), baseUrl), init);
  let launched = options.startAt ?? 0;

  const creatorAccount = (index: number) =>
    privateKeyToAccount(keccak256(toHex(`launchdex-studio:${options.seed}:creator:${index % 4}`)));

  return {
    /**
     * Uploads, launches and finalizes a token (the next catalog entry unless `token` names one);
     * resolves once it is finalized.
     */
    async launch(
      p: { firstBuy?: bigint; token?: { name: string; symbol: string; description: string } } = {},
    ): Promise<StudioLaunch> {
      const index = launched++;
      const entry = p.token ?? (catalog[index % catalog.length] as (typeof catalog)[number]);
      const round = p.token ? 0 : Math.floor(index / catalog.length);
      const name = round === 0 ? entry.name : `${entry.name} ${round + 1}`;
      const symbol = round === 0 ? entry.symbol : `${entry.symbol}${round + 1}`;
      const slug = symbol.toLowerCase();
      const account = creatorAccount(index);
      await client.test.setBalance({ address: account.address, value: 1_000_000n * WAD });

      const logo = await tokenLogo(`${options.seed}:${symbol}`);
      const supply = 1_000_000_000n * WAD;
      const launch: ValidLaunch = {
        fields: {
          name,
          symbol,
          initial_supply: supply.toString(),
          description: entry.description,
          website_url: `https://${slug}.example`,
          x_url: `https://x.com/${slug}`,
          ...(index % 2 === 0 ? { telegram_url: `https://t.me/${slug}` } : {}),
          creator: account.address,
        },
        imageFile: new File([new Uint8Array(logo)], `${slug}.png`, { type: 'image/png' }),
        name,
        symbol,
        initialSupply: supply,
        firstBuy: p.firstBuy ?? 0n,
      };

      const services: LaunchServices = {
        uploadDraft: (l) => uploadDraft(l.fields, l.imageFile, api),
        sendLaunch: (l, metadataHash) =>
          client.writeContract({
            address: deployment.contracts.factory,
            abi: launchFactoryAbi,
            functionName: 'launch',
            args: [l.name, l.symbol, l.initialSupply, metadataHash],
            value: l.firstBuy,
            // anvil runs with --auto-impersonate; the key below only signs Finalize.
            account: account.address,
            chain: client.chain,
          }),
        async waitForLaunch(transactionHash) {
          const receipt = await client.waitForTransactionReceipt({
            hash: transactionHash,
            pollingInterval: 50,
          });
          const [event] = parseEventLogs({
            abi: launchFactoryAbi,
            logs: receipt.logs,
            eventName: 'TokenLaunched',
          });
          if (receipt.status !== 'success' || !event)
            throw new Error(`launch ${transactionHash} of ${symbol} reverted`);
          return {
            token: event.args.token.toLowerCase() as Address,
            blockNumber: Number(receipt.blockNumber),
          };
        },
        signFinalize: (message) =>
          account.signTypedData({
            domain: finalizeDomain(chainId),
            types: finalizeTypes,
            primaryType: 'Finalize',
            message,
          }),
        postFinalize: (draftId, body) => postFinalize(draftId, body, api),
        sleep,
      };
      const token = await runLaunch(services, launch, {}, (step) => {
        if (step.kind === 'indexing')
          options.log?.(`  ${symbol}: waiting for the index (at ${step.indexedThroughBlock ?? '–'})`);
      });
      return { token, creator: account.address.toLowerCase() as Address, name, symbol };
    },
  };
}
export type CreatorStudio = ReturnType<typeof createCreatorStudio>;
