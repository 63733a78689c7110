import { Agent, fetch as undiciFetch } from 'undici';

const agents = new Map<string, Agent>();

/**
 * A fetch whose connections leave from `localAddress` (any of 127.0.0.0/8 on Linux): a distinct
 * client as the server's socket sees it, which X-Forwarded-For cannot fake.
 * @example const alice = fetchFrom('127.0.0.2'); await alice(`${baseUrl}/api/v1/tokens`);
 */
export function fetchFrom(localAddress: string): typeof fetch {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress });
    agents.set(localAddress, agent);
  }
  const dispatcher = agent;
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher } as Parameters<
      typeof undiciFetch
    >[1])) as unknown as typeof fetch;
}

/** A loopback address no other test of this run uses, so limits counted per client start fresh. */
export function freshLoopbackClient(): string {
  const n = Math.floor(Math.random() * 250) + 2;
  const m = Math.floor(Math.random() * 250) + 2;
  return `127.${(process.pid % 200) + 2}.${n}.${m}`;
}
