/**
 * Runs once when the Next.js server starts. The work lives in server/startup.ts, loaded only in
 * the Node.js runtime (NEXT_RUNTIME is set by Next itself, not by user configuration).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startServerProcess } = await import('./server/startup');
    await startServerProcess();
  }
}
