import { parseArgs } from 'node:util';
import { ADDRESS_PATTERN } from '../../shared/address';
import type { Database } from '../db/client';
import type { Resolver } from '../metadata/ssrf';
import { MAX_WEBHOOK_BATCH } from './message';
import { replayWebhookEvents, webhookEventTypes } from './outbox';
import type { RetryPolicy } from './retry';
import { SECRET_OVERLAP_HOURS } from './signature';
import { checkWebhookUrl, pinWebhookAddress, type WebhookUrlPolicy } from './target-url';
import {
  addWebhookTarget,
  parseBatchSize,
  parseEventTypes,
  removeWebhookTarget,
  rotateWebhookSecret,
  setWebhookBatchSize,
  webhookStatus,
} from './targets';

export interface WebhooksCommandContext {
  db: Database;
  resolver: Resolver;
  policy: WebhookUrlPolicy;
  retry: RetryPolicy;
  print(line: string): void;
  printError(line: string): void;
}

export const webhooksUsage = `usage: npm run webhooks -- <command>
  add URL [--token ADDRESS] [--events ${webhookEventTypes.join(',')}] [--from-block N] [--batch N]
                                                         prints the id and the secret (once); with
                                                         --from-block, queues the events since block N;
                                                         with --batch, up to N events per POST
  batch ID N                                             up to N events per POST from now on (1: one each)
  replay ID --from-block N                               queues the target's events since block N again
  list                                                   targets and their filters
  remove ID                                              the target and its queue
  rotate-secret ID                                       prints a new secret (once); both sign for ${SECRET_OVERLAP_HOURS} h
  status                                                 per target: pending, delivered, failing since, last error`;

const when = (date: Date | null) => (date ? date.toISOString() : '-');

/**
 * `npm run webhooks`: the operator's only way to configure targets (there is no registration
 * endpoint). Returns the exit code. `add` refuses a URL the SSRF policy refuses, resolving its
 * name now; every delivery checks it again.
 */
export async function runWebhooksCommand(args: string[], context: WebhooksCommandContext): Promise<number> {
  const { db, print, printError } = context;
  let parsed: ReturnType<typeof parse>;
  const parse = () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        token: { type: 'string' },
        events: { type: 'string' },
        'from-block': { type: 'string' },
        batch: { type: 'string' },
      },
    });
  try {
    parsed = parse();
  } catch (error) {
    printError(`${error instanceof Error ? error.message : String(error)}\n${webhooksUsage}`);
    return 2;
  }
  const [command, argument, ...rest] = parsed.positionals;
  const positionals = ['add', 'remove', 'rotate-secret', 'replay'].includes(command ?? '')
    ? 2
    : command === 'batch'
      ? 3
      : 1;
  if (!command || parsed.positionals.length !== positionals) {
    printError(webhooksUsage);
    return 2;
  }
  const batchText = command === 'batch' ? rest[0] : parsed.values.batch;
  const batchSize = batchText === undefined ? undefined : parseBatchSize(batchText);
  if (batchText !== undefined && batchSize === undefined) {
    printError(`the batch size must be a whole number from 1 to ${MAX_WEBHOOK_BATCH}`);
    return 2;
  }
  const fromText = parsed.values['from-block'];
  if ((fromText !== undefined || command === 'replay') && !/^\d{1,15}$/.test(fromText ?? '')) {
    printError('--from-block must be a block number');
    return 2;
  }
  const fromBlock = fromText === undefined ? undefined : Number(fromText);
  /** Queues a target's events since `fromBlock` again; prints what it did. */
  const replay = async (id: string, from: number): Promise<number> => {
    const replayed = await replayWebhookEvents(db, id, from);
    if ('missing' in replayed) {
      printError(`no webhook target ${id}`);
      return 1;
    }
    if ('beyond' in replayed) {
      printError(`block ${from} is beyond the indexed head (${replayed.beyond}): nothing to replay yet`);
      return 1;
    }
    print(`queued ${replayed.queued} events of blocks ${from}..${replayed.head}, ahead of later ones`);
    return 0;
  };
  switch (command) {
    case 'add': {
      const token = parsed.values.token?.toLowerCase() ?? null;
      if (token !== null && !new RegExp(ADDRESS_PATTERN).test(token)) {
        printError('--token must be a 0x-prefixed 20-byte hex address');
        return 2;
      }
      const events = parseEventTypes(parsed.values.events ?? webhookEventTypes.join(','));
      if (!events) {
        printError(`--events must be a comma-separated list of ${webhookEventTypes.join(', ')}`);
        return 2;
      }
      let url: URL;
      try {
        url = checkWebhookUrl(argument as string, context.policy);
        await pinWebhookAddress(url, context.resolver, context.policy, AbortSignal.timeout(10_000));
      } catch (error) {
        printError(`refused: ${error instanceof Error ? error.message : String(error)}`);
        return 1;
      }
      const added = await addWebhookTarget(db, {
        url: url.toString(),
        tokenAddress: token,
        events,
        ...(batchSize === undefined ? {} : { batchSize }),
      });
      print(`id     ${added.id}`);
      print(`secret ${added.secret}`);
      print('The secret is shown once: store it where your receiver reads it.');
      return fromBlock === undefined ? 0 : replay(added.id, fromBlock);
    }
    case 'replay':
      return replay(argument as string, fromBlock as number);
    case 'batch':
      if (await setWebhookBatchSize(db, argument as string, batchSize as number)) {
        print(`${argument} gets up to ${batchSize} events per POST from its next POST on`);
        return 0;
      }
      printError(`no webhook target ${argument}`);
      return 1;
    case 'remove':
      if (await removeWebhookTarget(db, argument as string)) {
        print(`removed ${argument}`);
        return 0;
      }
      printError(`no webhook target ${argument}`);
      return 1;
    case 'rotate-secret': {
      const secret = await rotateWebhookSecret(db, argument as string);
      if (!secret) {
        printError(`no webhook target ${argument}`);
        return 1;
      }
      print(`secret ${secret}`);
      print(`Signs from the next delivery on; the old secret signs beside it for ${SECRET_OVERLAP_HOURS} h.`);
      return 0;
    }
    case 'list':
    case 'status': {
      const targets = await webhookStatus(db, context.retry);
      if (targets.length === 0) print('no webhook targets');
      for (const t of targets) {
        const filter = `${t.events.join(',')}${t.tokenAddress ? ` of ${t.tokenAddress}` : ''}${t.batchSize > 1 ? `  batches of ${t.batchSize}` : ''}`;
        if (command === 'list') {
          print(`${t.id}  ${t.url}  ${filter}  added ${when(t.createdAt)}`);
          continue;
        }
        const state = t.failing ? 'FAILING' : t.failingSince ? 'retrying' : 'ok';
        print(
          `${t.id}  ${state}  pending ${t.pending}  delivered ${t.delivered}  last delivered ${when(t.lastDeliveredAt)}  ` +
            `failing since ${when(t.failingSince)}  attempts ${t.attempts}  next attempt ${t.failingSince ? when(t.nextAttemptAt) : '-'}  ` +
            `last error ${t.lastError ?? '-'}`,
        );
      }
      return 0;
    }
    default:
      printError(`unknown command ${command}\n${webhooksUsage}`);
      return 2;
  }
}
