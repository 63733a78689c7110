import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the TypeScript module at `url`. The server and its scripts run under
 * tsx (`node --import tsx`), but a worker does not inherit the loader hooks that registered in
 * the main thread, so the thread registers tsx first and then imports its module.
 * @example typeScriptWorker(new URL('./thread.ts', import.meta.url), { workerData })
 */
export function typeScriptWorker(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const entry = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(entry, { ...options, eval: true });
}
