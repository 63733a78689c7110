import { Agent, buildConnector } from 'undici';

/**
 * An undici Agent whose every connection goes to `destination` (the address already checked and
 * pinned, so DNS is never asked again), while TLS still names and verifies `servername`. An IP
 * literal is sent as no SNI at all, which TLS forbids for addresses. `options` sets the pool
 * (its connections, keep-alive), never where a connection goes.
 */
export function pinnedAgent(
  destination: { host: string; port: number },
  servername: string,
  connector: buildConnector.BuildOptions,
  options: Omit<Agent.Options, 'connect'> = {},
): Agent {
  const connect = buildConnector(connector);
  return new Agent({
    ...options,
    connect: (connectOptions, callback) =>
      connect(
        {
          ...connectOptions,
          hostname: destination.host,
          port: String(destination.port),
          servername: /^[\d.]+$|:/.test(servername) ? undefined : servername,
        },
        callback,
      ),
  });
}
