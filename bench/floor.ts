/**
 * `node dist/bench-floor.js --database-url URL [--port 0] [--workers 1]`
 * (started by `npm run bench`; CURSOR_SECRET from the environment)
 *
 * The floor of the read API (DESIGN.md section 10): a bare `node:http` + postgres.js server that
 * answers each route class `npm run bench` measures with one prepared statement over the same
 * database, and writes the same JSON as Launchdex's REST answer (same keys in the same order,
 * amounts as decimal text, lowercase addresses, `indexed_through_block` read in the same
 * statement, the same cursors, ETag and Cache-Control). No gate, no validation library, no query
 * builder, no logging: what is left is what any server must do to give this answer, so
 * Launchdex's distance to it is its own overhead. `--workers N` forks N processes (node:cluster)
 * sharing the port, each with its own pool, like N Launchdex workers.
 */
import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { requireDatabaseUrl } from './lib/database-url';
import { createFloorAnswers } from './lib/floor-answers';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    workers: { type: 'string', default: '1' },
    pool: { type: 'string', default: '10' },
  },
});
const databaseUrl = requireDatabaseUrl(values['database-url']);
const workers = Math.max(1, Number(values.workers));

if (workers > 1 && cluster.isPrimary) {
  for (let index = 0; index < workers; index++) cluster.fork();
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers)
      console.log(`▶ floor listening on http://${values.host}:${address.port} (${workers} workers)`);
  });
  cluster.on('exit', (_worker, code) => {
    console.error(`floor worker exited with ${code}`);
    process.exit(1);
  });
  const stop = () => {
    cluster.removeAllListeners('exit');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else {
  serve(databaseUrl);
}

function serve(url: string): void {
  const sql = postgres(url, {
    // Launchdex's web process holds one pool of 10 (server/db/client.ts).
    max: Number(values.pool),
    onnotice: () => {},
    connection: { application_name: 'launchdex-floor' },
    // Block numbers and Unix seconds are int8 columns far below 2^53; the answers carry numbers.
    types: { int8: { to: 20, from: [20], serialize: (value: number) => String(value), parse: Number } },
  });
  const answer = createFloorAnswers(sql, process.env.CURSOR_SECRET ?? 'launchdex-bench-cursor-key');
  const cacheControl = 'public, max-age=1, stale-while-revalidate=10';

  const server = createServer((request, response) => {
    const target = request.url ?? '/';
    const mark = target.indexOf('?');
    const path = mark === -1 ? target : target.slice(0, mark);
    if (path === '/health') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const query = new URLSearchParams(mark === -1 ? '' : target.slice(mark + 1));
    answer(path, query).then(
      ({ status, value, body: written, indexedThroughBlock }) => {
        const body = written ?? JSON.stringify(value);
        if (status !== 200) {
          response
            .writeHead(status, {
              'content-type': 'application/json; charset=utf-8',
              'cache-control': 'no-store',
            })
            .end(body);
          return;
        }
        const block = indexedThroughBlock === undefined ? '' : `b${indexedThroughBlock}-`;
        const etag = `"${block}${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
        if (request.headers['if-none-match'] === etag) {
          response.writeHead(304, { etag, 'cache-control': cacheControl }).end();
          return;
        }
        response
          .writeHead(200, {
            'content-type': 'application/json; charset=utf-8',
            etag,
            'cache-control': cacheControl,
          })
          .end(body);
      },
      (error: unknown) => {
        console.error(error);
        response
          .writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
          .end('{"error":{"code":"internal","message":"internal error"}}');
      },
    );
  });
  server.listen(Number(values.port), values.host, () => {
    const address = server.address();
    if (workers === 1 && typeof address === 'object' && address)
      console.log(`▶ floor listening on http://${values.host}:${address.port}`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void sql.end({ timeout: 1 }).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
