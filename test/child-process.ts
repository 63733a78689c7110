import type { ChildProcess } from 'node:child_process';

/**
 * The whole environment of a script a test spawns in production: this process's PATH and HOME
 * and nothing else it holds, so the script sees only what the test passes in `env`.
 */
export function productionScriptEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...env };
}

/** Collects what `child` writes to stdout and stderr, in the order it arrives; read it with the returned function. */
export function collectOutput(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return () => output;
}

/** Whether a process with this id is running (signal 0 only checks that it could be signalled). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
