import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, webServingProblems } from '.';

const noFiles = { cwd: '/srv/app', readFile: () => undefined };

function problemsOf(env: Record<string, string>): { variable: string; message: string }[] {
  try {
    parseConfig(env, noFiles);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('defaults to embedded PGlite, local objects and port 3000 with no environment', () => {
    const config = parseConfig({}, noFiles);
    expect(config.database).toEqual({ kind: 'pglite', dir: '/srv/app/.data/pglite' });
    expect(config.objects).toEqual({ kind: 'filesystem', dir: '/srv/app/.data/objects' });
    expect(config.port).toBe(3000);
    expect(config.chain).toBeUndefined();
    expect(config.logLevel).toBe('info');
  });

  it('bounds every wait by default: pipelines, sends, image DNS and Redis (docs/security.md)', () => {
    const config = parseConfig({}, noFiles);
    expect(config.http).toMatchObject({ pipelineMax: 4, sendTimeoutMs: 60_000 });
    expect(config.imageDns).toEqual({ servers: undefined, timeoutMs: 3_000 });
    expect(config.redisCommandTimeoutMs).toBe(250);
    expect(
      parseConfig({ IMAGE_DNS_SERVERS: '1.1.1.1, [2606:4700::1111]:53,127.0.0.1:5353' }, noFiles).imageDns
        .servers,
    ).toEqual(['1.1.1.1', '[2606:4700::1111]:53', '127.0.0.1:5353']);
  });

  it('uses postgres.js when DATABASE_URL is set', () => {
    const config = parseConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' }, noFiles);
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:5432/x',
      connectTimeoutMs: 2_000,
      heartbeatMs: 1_000,
      heartbeatDeadlineMs: 2_000,
    });
  });

  it('reads replicas of the primary from DATABASE_READ_URLS, none by default', () => {
    expect(parseConfig({}, noFiles).replicas).toEqual({
      urls: [],
      maxLagBlocks: 16,
      pollMs: 250,
      pollDeadlineMs: 750,
    });
    const config = parseConfig(
      {
        DATABASE_URL: 'postgres://db-primary/launchdex',
        DATABASE_READ_URLS: ' postgres://db-r1/launchdex, ,postgresql://db-r2:5433/launchdex ',
        REPLICA_MAX_LAG_BLOCKS: '4',
        REPLICA_POLL_MS: '100',
        REPLICA_POLL_DEADLINE_MS: '400',
      },
      noFiles,
    );
    expect(config.replicas).toEqual({
      urls: ['postgres://db-r1/launchdex', 'postgresql://db-r2:5433/launchdex'],
      maxLagBlocks: 4,
      pollMs: 100,
      pollDeadlineMs: 400,
    });
  });

  it('takes a DATABASE_URL naming several hosts, as libpq does, and says why one cannot be used', () => {
    const url = 'postgres://app:secret@db-a:5432,db-b:5433/launchdex?target_session_attrs=read-write';
    expect(parseConfig({ DATABASE_URL: url }, noFiles).database).toEqual({
      kind: 'postgres',
      url,
      connectTimeoutMs: 2_000,
      heartbeatMs: 1_000,
      heartbeatDeadlineMs: 2_000,
    });
    expect(problemsOf({ DATABASE_URL: 'mysql://db/launchdex' })[0]?.message).toBe(
      'must be a URL with scheme postgres: or postgresql:',
    );
    expect(problemsOf({ DATABASE_URL: 'postgres://db-a,db-b:x/launchdex' })[0]?.message).toBe(
      'names a host that is not host[:port]: "db-b:x"',
    );
    expect(
      problemsOf({ DATABASE_URL: 'postgres://db-a,db-b/launchdex?target_session_attrs=standby' })[0]?.message,
    ).toMatch(/^target_session_attrs=standby is not supported here/);
    expect(problemsOf({ DATABASE_CONNECT_TIMEOUT_MS: '5' }).map((p) => p.variable)).toEqual([
      'DATABASE_CONNECT_TIMEOUT_MS',
    ]);
  });

  it('refuses replicas without a PostgreSQL primary, and entries that are not PostgreSQL URLs', () => {
    expect(problemsOf({ DATABASE_READ_URLS: 'postgres://db-r1/launchdex' }).map((p) => p.variable)).toEqual([
      'DATABASE_READ_URLS',
    ]);
    expect(
      problemsOf({ DATABASE_URL: 'postgres://db/launchdex', DATABASE_READ_URLS: 'http://db-r1/x' })[0]
        ?.message,
    ).toMatch(/postgres/);
    expect(problemsOf({ REPLICA_POLL_MS: '5' }).map((p) => p.variable)).toEqual(['REPLICA_POLL_MS']);
    expect(problemsOf({ REPLICA_MAX_LAG_BLOCKS: '-1' }).map((p) => p.variable)).toEqual([
      'REPLICA_MAX_LAG_BLOCKS',
    ]);
    for (const bad of ['0', '-1', '1.5', 'many'])
      expect(problemsOf({ HISTORY_SEGMENT_MIN_EVENTS: bad }).map((p) => p.variable)).toEqual([
        'HISTORY_SEGMENT_MIN_EVENTS',
      ]);
  });

  it('treats empty strings as unset', () => {
    expect(parseConfig({ DATABASE_URL: '', PORT: '' }, noFiles).database.kind).toBe('pglite');
  });

  it.each([
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ RPC_URL: 'ftp://node' }, 'RPC_URL'],
    [{ FACTORY_ADDRESS: '0x123' }, 'FACTORY_ADDRESS'],
    [{ FINALITY_DEPTH: '1.5' }, 'FINALITY_DEPTH'],
    [{ S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ CURSOR_SECRET: 'bench' }, 'CURSOR_SECRET'],
    [{ WEB_WORKERS: '0' }, 'WEB_WORKERS'],
    [{ WEB_WORKERS: 'many' }, 'WEB_WORKERS'],
    [{ WEB_WORKERS: '2.5' }, 'WEB_WORKERS'],
    [{ INDEXER_MAX_RESPONSE_MB: '0' }, 'INDEXER_MAX_RESPONSE_MB'],
    [{ INDEXER_MAX_RESPONSE_MB: 'lots' }, 'INDEXER_MAX_RESPONSE_MB'],
    [{ INDEXER_DEFER_INDEXES_BLOCKS: '-1' }, 'INDEXER_DEFER_INDEXES_BLOCKS'],
    [{ INDEXER_DEFER_INDEXES_BLOCKS: 'soon' }, 'INDEXER_DEFER_INDEXES_BLOCKS'],
    [{ IMAGE_DNS_SERVERS: 'dns.example' }, 'IMAGE_DNS_SERVERS'],
    [{ IMAGE_DNS_SERVERS: '1.1.1.1,1.1.1.1:99999' }, 'IMAGE_DNS_SERVERS'],
    [{ HTTP_PIPELINE_MAX: '0' }, 'HTTP_PIPELINE_MAX'],
    [{ REDIS_COMMAND_TIMEOUT_MS: '5' }, 'REDIS_COMMAND_TIMEOUT_MS'],
    [{ FUNDING_HOPS: '-1' }, 'FUNDING_HOPS'],
    [{ FUNDING_HOPS: '1.5' }, 'FUNDING_HOPS'],
    [{ FUNDING_WINDOW_BLOCKS: '0' }, 'FUNDING_WINDOW_BLOCKS'],
    [{ FUNDING_WINDOW_BLOCKS: 'an hour' }, 'FUNDING_WINDOW_BLOCKS'],
  ])('rejects %j naming %s', (env, variable) => {
    const problems = problemsOf(env);
    expect(problems.map((p) => p.variable)).toContain(variable);
    expect(new ConfigError(problems).message).toContain(variable);
  });

  it('has no built-in cursor key: CURSOR_SECRET of 16+ characters, or unset for the persisted key', () => {
    expect(parseConfig({}, noFiles).cursorSecret).toBeUndefined();
    expect(parseConfig({ CURSOR_SECRET: '  ' }, noFiles).cursorSecret).toBeUndefined();
    expect(parseConfig({ CURSOR_SECRET: 'a'.repeat(16) }, noFiles).cursorSecret).toBe('a'.repeat(16));
    const [problem] = problemsOf({ CURSOR_SECRET: 'a'.repeat(15) });
    expect(problem?.variable).toBe('CURSOR_SECRET');
    expect(problem?.message).toContain('at least 16 characters');
  });

  it('requires chain id, factory and start block together with RPC_URL', () => {
    const problems = problemsOf({ RPC_URL: 'http://127.0.0.1:8545' });
    expect(problems.map((p) => p.variable).sort()).toEqual(['CHAIN_ID', 'FACTORY_ADDRESS', 'START_BLOCK']);
  });

  it('reads an external chain fully from the environment, lowercasing the address', () => {
    const config = parseConfig(
      {
        RPC_URL: 'https://rpc.example',
        CHAIN_ID: '5042002',
        FACTORY_ADDRESS: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        START_BLOCK: '123',
        FINALITY_DEPTH: '12',
        SNIPER_BLOCKS: '5',
        FUNDING_HOPS: '0',
      },
      noFiles,
    );
    expect(config.chain).toEqual({
      rpcUrl: 'https://rpc.example',
      chainId: 5042002,
      factoryAddress: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      startBlock: 123n,
      finalityDepth: 12,
      labels: { sniperBlocks: 5, bundlerWallets: 4, fundingHops: 0, fundingWindowBlocks: 300 },
      maxRange: 50_000,
      maxResponseBytes: 64 * 2 ** 20,
      rpcTimeoutMs: 15_000,
      pollIntervalMs: 500,
      deferIndexesBlocks: 1_000,
      historySegmentMinEvents: 10_000,
    });
    expect(
      parseConfig(
        {
          RPC_URL: 'https://rpc.example',
          CHAIN_ID: '1',
          FACTORY_ADDRESS: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
          START_BLOCK: '1',
          INDEXER_MAX_RESPONSE_MB: '16',
          INDEXER_DEFER_INDEXES_BLOCKS: '0',
          HISTORY_SEGMENT_MIN_EVENTS: '8',
        },
        noFiles,
      ).chain,
    ).toMatchObject({ maxResponseBytes: 16 * 2 ** 20, deferIndexesBlocks: 0, historySegmentMinEvents: 8 });
  });

  it('reads the devnet deployment manifest when no RPC_URL is set', () => {
    const manifest = JSON.stringify({
      chainId: 31337,
      rpcUrl: 'http://127.0.0.1:8545',
      startBlock: 1,
      contracts: { factory: '0x5fbdb2315678afecb367f032d93f642f64180aa3' },
    });
    const config = parseConfig(
      {},
      { cwd: '/srv/app', readFile: (f) => (f === '/srv/app/.data/deployment.json' ? manifest : undefined) },
    );
    expect(config.chain?.chainId).toBe(31337);
    expect(config.chain?.startBlock).toBe(1n);
  });

  it('names the manifest when it is corrupt', () => {
    expect(() => parseConfig({}, { cwd: '/srv/app', readFile: () => '{not json' })).toThrow(
      /DEPLOYMENT_MANIFEST.*not valid JSON/,
    );
  });

  it('requires a region or an endpoint with S3_BUCKET', () => {
    expect(problemsOf({ S3_BUCKET: 'images' }).map((p) => p.variable)).toEqual(['S3_REGION']);
    expect(
      parseConfig(
        { S3_BUCKET: 'images', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true' },
        noFiles,
      ).objects,
    ).toMatchObject({
      kind: 's3',
      bucket: 'images',
      forcePathStyle: true,
    });
  });

  it('drafts live 24 h unbound, a client holds 50 MB of them, a web process purges every 10 min', () => {
    expect(parseConfig({}, noFiles).drafts).toEqual({
      ttlMs: 24 * 3_600_000,
      budgetBytes: 50_000_000,
      purgeIntervalMs: 600_000,
    });
    expect(
      parseConfig({ DRAFT_TTL_HOURS: '2', DRAFT_BUDGET_MB: '0', DRAFT_PURGE_INTERVAL_MS: '0' }, noFiles)
        .drafts,
    ).toEqual({ ttlMs: 2 * 3_600_000, budgetBytes: 0, purgeIntervalMs: 0 });
    expect(() => parseConfig({ DRAFT_TTL_HOURS: '0' }, noFiles)).toThrow(
      /DRAFT_TTL_HOURS: must be at least 1/,
    );
    expect(() => parseConfig({ DRAFT_BUDGET_MB: '5.5' }, noFiles)).toThrow(/DRAFT_BUDGET_MB/);
  });

  it('WEB_WORKERS: auto (one per core on PostgreSQL) unless a whole number is given', () => {
    expect(parseConfig({}, noFiles).webWorkers).toBe('auto');
    expect(parseConfig({ WEB_WORKERS: 'auto' }, noFiles).webWorkers).toBe('auto');
    expect(parseConfig({ WEB_WORKERS: ' 3 ' }, noFiles).webWorkers).toBe(3);
  });
  it('PUBLIC_BASE_URL: one spelling when given, else the URL this process listens at', () => {
    expect(parseConfig({ PUBLIC_BASE_URL: 'https://Launchdex.Example:443/' }, noFiles)).toMatchObject({
      publicBaseUrl: 'https://launchdex.example',
      publicBaseUrlSource: 'environment',
    });
    expect(parseConfig({ PUBLIC_BASE_URL: 'https://example.org/explorer/' }, noFiles).publicBaseUrl).toBe(
      'https://example.org/explorer',
    );
    expect(parseConfig({}, noFiles)).toMatchObject({
      publicBaseUrl: 'http://127.0.0.1:3000',
      publicBaseUrlSource: 'default',
    });
    expect(parseConfig({ HOST: '0.0.0.0', PORT: '8080' }, noFiles).publicBaseUrl).toBe(
      'http://localhost:8080',
    );
    expect(parseConfig({ HOST: '::1', PORT: '8080' }, noFiles).publicBaseUrl).toBe('http://[::1]:8080');
    for (const bad of [
      'launchdex.example',
      'ftp://x.example',
      'https://x.example/?a=1',
      'https://u:p@x.example',
    ])
      expect(problemsOf({ PUBLIC_BASE_URL: bad }).map((p) => p.variable)).toEqual(['PUBLIC_BASE_URL']);
  });

  it('the web server in production on a real chain needs PUBLIC_BASE_URL; the devnet and development do not', () => {
    const realChain = {
      NODE_ENV: 'production',
      RPC_URL: 'https://rpc.example',
      CHAIN_ID: '8453',
      FACTORY_ADDRESS: `0x${'1'.repeat(40)}`,
      START_BLOCK: '1',
    };
    const [problem] = webServingProblems(parseConfig(realChain, noFiles));
    expect(problem?.variable).toBe('PUBLIC_BASE_URL');
    expect(problem?.message).toMatch(/required in production on chain 8453/);
    expect(
      webServingProblems(
        parseConfig({ ...realChain, PUBLIC_BASE_URL: 'https://launchdex.example' }, noFiles),
      ),
    ).toEqual([]);
    expect(webServingProblems(parseConfig({ ...realChain, NODE_ENV: 'development' }, noFiles))).toEqual([]);
    expect(webServingProblems(parseConfig({ ...realChain, CHAIN_ID: '31337' }, noFiles))).toEqual([]);
    expect(webServingProblems(parseConfig({ NODE_ENV: 'production' }, noFiles))).toEqual([]);
  });
});
