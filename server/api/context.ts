import type { PublicClient } from 'viem';
import { createChainPublicClient } from '../chain/clients';
import { getConfig } from '../config';
import { getDatabase } from '../db';
import { getReadDatabases } from '../db/read-databases';
import { createDnsResolver } from '../metadata/dns-resolver';
import { createImageFetcher, type ImageFetcher } from '../metadata/fetch-image';
import { getObjectStore } from '../objects/store';
import { getCursorSecret } from './cursor-secret';
import type { Context } from './trpc';

const slot: {
  imageFetcher?: ImageFetcher;
  chainClient?: PublicClient;
} = {};

/**
 * The context of one request in this process: shared database, config, clock and services.
 * `transport` is `http` for tRPC requests from outside, `caller` for in-process calls (the REST
 * adapter, server components).
 */
export async function createRequestContext(
  transport: Context['transport'] = 'caller',
  client?: string,
): Promise<Context> {
  const config = getConfig();
  const { db } = await getDatabase(config);
  // The cursor key is read (and on first start written) on the primary: a replica may not have it yet.
  const cursorSecret = await getCursorSecret(config, db);
  const reads = await getReadDatabases(config);
  slot.imageFetcher ??= createImageFetcher({
    resolver: createDnsResolver(config.imageDns),
    dnsTimeoutMs: config.imageDns.timeoutMs,
  });
  return {
    transport,
    ...(client === undefined ? {} : { client }),
    db,
    ...(reads.replicated ? { reads } : {}),
    config,
    cursorSecret,
    clock: () => new Date(),
    objects: () => getObjectStore(config.objects),
    fetchImage: slot.imageFetcher,
    chain: () => {
      if (!config.chain) return undefined;
      slot.chainClient ??= createChainPublicClient(config.chain.chainId, config.chain.rpcUrl) as PublicClient;
      return {
        client: slot.chainClient,
        chainId: config.chain.chainId,
        factory: config.chain.factoryAddress,
      };
    },
  };
}
