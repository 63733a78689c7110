import type { Agent } from 'undici';
import { pinnedAgent } from '../metadata/pinned-agent';

/** Where a target's connection goes: its URL's origin, the vetted address, and the socket's end. */
export interface WebhookDestination {
  origin: string;
  /** The address pinWebhookAddress vetted for this POST. */
  pinned: string;
  /** What the socket dials: `pinned` itself, or a test's loopback route to it. */
  host: string;
  port: number;
  /** The name TLS verifies. */
  servername: string;
}

export interface WebhookConnections {
  /**
   * The target's kept-alive agent to exactly `to`: the kept one while every part is unchanged,
   * else a new one, the old one closed first, so no socket outlives the address it was vetted for.
   */
  agent(targetId: string, to: WebhookDestination): Agent;
  /** The vetted address of the target's kept connection, if it has one. */
  pinned(targetId: string): string | undefined;
  /** Closes the target's connection (its address was refused, or the target is gone). */
  drop(targetId: string): void;
  /** Closes the connections of targets that sent nothing for `idleMs`. */
  dropIdle(idleMs: number): void;
  close(): Promise<void>;
}

/**
 * The webhook worker's connections: one undici agent per target, holding at most one socket (a
 * target's POSTs go one at a time), kept alive between POSTs and between drains, as long as the
 * receiver keeps it (undici honours its `Keep-Alive: timeout`). The agent dials the pinned address
 * only (pinned-agent.ts): every POST still resolves and vets the name first (pinWebhookAddress),
 * and a changed answer gets a new agent, never the old socket.
 *
 * @example const connections = createWebhookConnections({ timeoutMs: 10_000 });
 */
export function createWebhookConnections(options: {
  /** Connect deadline (the POST's). */
  timeoutMs: number;
  /** A test's certificate authority for a loopback HTTPS receiver. */
  ca?: string;
}): WebhookConnections {
  const kept = new Map<string, { key: string; pinned: string; agent: Agent; usedAt: number }>();
  const drop = (targetId: string) => {
    const entry = kept.get(targetId);
    if (!entry) return;
    kept.delete(targetId);
    entry.agent.destroy().catch(() => {});
  };
  return {
    agent(targetId, to) {
      const key = JSON.stringify([to.origin, to.pinned, to.host, to.port, to.servername]);
      const entry = kept.get(targetId);
      if (entry?.key === key) {
        entry.usedAt = Date.now();
        return entry.agent;
      }
      drop(targetId);
      const agent = pinnedAgent(
        { host: to.host, port: to.port },
        to.servername,
        { timeout: options.timeoutMs, ...(options.ca ? { ca: options.ca } : {}) },
        { connections: 1 },
      );
      kept.set(targetId, { key, pinned: to.pinned, agent, usedAt: Date.now() });
      return agent;
    },
    pinned: (targetId) => kept.get(targetId)?.pinned,
    drop,
    dropIdle(idleMs) {
      const before = Date.now() - idleMs;
      for (const [targetId, entry] of kept) if (entry.usedAt < before) drop(targetId);
    },
    async close() {
      const agents = [...kept.values()].map((entry) => entry.agent);
      kept.clear();
      await Promise.allSettled(agents.map((agent) => agent.close()));
    },
  };
}
