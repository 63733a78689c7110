/** The `--database-url` a bench cannot run without: when it is absent, says so and exits 2. */
export function requireDatabaseUrl(url: string | undefined, note = ''): string {
  if (url) return url;
  console.error(`--database-url postgres://… is required${note}`);
  process.exit(2);
}
