import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether this code runs as compiled JavaScript (dist/, `npm run build`) rather than under tsx. */
export const compiled = import.meta.url.endsWith('.js');

/**
 * A worker thread running the module at `url`. A TypeScript module runs under tsx, whose loader
 * hooks a worker does not inherit from the main thread, so the thread registers tsx first; a
 * compiled one (dist/) is plain JavaScript.
 * @example moduleWorker(new URL('./thread.ts', import.meta.url), { workerData })
 */
export function moduleWorker(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const entry = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(entry, { ...options, eval: true });
}
