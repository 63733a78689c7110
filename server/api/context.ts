import type { PublicClient } from 'viem';
import { createChainPublicClient } from '../chain/clients';
import type { Config } from '../config';
import type { Database } from '../db';
import type { ReadDatabases } from '../db/read-databases';
import { createDnsResolver } from '../metadata/dns-resolver';
import { createImageFetcher } from '../metadata/fetch-image';
import type { ObjectStore } from '../objects/store';
import type { DatabaseTurn } from './database-share';
import type { Context } from './trpc';

/** The process's resources a procedure context is made of (server/process builds them once). */
export interface ContextResources {
  config: Config;
  /** The primary: writes, and reads when there are no replicas. */
  db: Database;
  reads: ReadDatabases;
  /** Read (and on first start written) on the primary at process start: a replica may not have it yet. */
  cursorSecret: string;
  objects: ObjectStore;
  databaseTurn: DatabaseTurn;
}

/**
 * The procedures' context of one process: shared database, config, clock and services. It holds
 * process-wide services only, so one object serves every call; the tRPC transport and the REST
 * writes spread it with their client. `transport` is `caller` (in-process calls: the REST
 * adapter, server components); tRPC over HTTP sets `http`.
 * @example const caller = createCaller(createRequestContext(resources));
 */
export function createRequestContext(resources: ContextResources): Context {
  const { config, db, reads, cursorSecret, objects, databaseTurn } = resources;
  const fetchImage = createImageFetcher({
    resolver: createDnsResolver(config.imageDns),
    dnsTimeoutMs: config.imageDns.timeoutMs,
  });
  // Built on the first call that needs the chain (finalize), then kept with the context.
  let chainClient: PublicClient | undefined;
  return {
    transport: 'caller',
    db,
    ...(reads.replicated ? { reads } : {}),
    config,
    cursorSecret,
    clock: () => new Date(),
    objects: async () => objects,
    fetchImage,
    databaseTurn,
    chain: () => {
      if (!config.chain) return undefined;
      chainClient ??= createChainPublicClient(config.chain.chainId, config.chain.rpcUrl) as PublicClient;
      return {
        client: chainClient,
        chainId: config.chain.chainId,
        factory: config.chain.factoryAddress,
      };
    },
  };
}
