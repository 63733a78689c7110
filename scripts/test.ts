/**
 * `npm test`: every check CI needs, in order, with timing. Stops at the first failure.
 * Steps can be narrowed for local work: `npm test -- unit int`.
 */
import { spawnSync } from 'node:child_process';

const steps = [
  { name: 'typecheck', command: ['npx', 'tsc', '--noEmit'] },
  { name: 'lint', command: ['npx', 'biome', 'check', '.'] },
  // The served OpenAPI document against Redocly's recommended rules, offline.
  { name: 'openapi', command: ['npx', 'tsx', 'scripts/openapi-lint.ts'] },
  { name: 'contracts', command: ['npx', 'tsx', 'contracts/build.ts', '--check'] },
  // client/schema.generated.ts is what the served document generates today.
  { name: 'client', command: ['npm', 'run', '--silent', 'client:generate', '--', '--check'] },
  { name: 'unit', command: ['npx', 'vitest', 'run', '--project', 'unit'] },
  // The web app and the compiled server the integration and e2e suites start (dist/).
  { name: 'build', command: ['npm', 'run', 'build'] },
  // First-load JavaScript of the home and token pages, read from the build just made.
  { name: 'budget', command: ['npx', 'tsx', 'scripts/bundle-budget.ts'] },
  { name: 'int', command: ['npx', 'vitest', 'run', '--project', 'integration'] },
  // Hostile clients and the fuzzer measure latency: alone on the machine, after the rest.
  { name: 'load', command: ['npx', 'vitest', 'run', '--project', 'load'] },
  { name: 'e2e', command: ['npx', 'playwright', 'test'] },
];

const only = process.argv.slice(2);
const selected = only.length > 0 ? steps.filter((s) => only.includes(s.name)) : steps;
const timings: string[] = [];
const started = Date.now();

for (const step of selected) {
  const stepStart = Date.now();
  console.log(`\n▶ ${step.name}: ${step.command.join(' ')}`);
  const [cmd, ...args] = step.command as [string, ...string[]];
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  const seconds = ((Date.now() - stepStart) / 1000).toFixed(1);
  timings.push(`${step.name} ${seconds}s`);
  if (result.status !== 0) {
    console.error(`\n✖ ${step.name} failed after ${seconds}s (${timings.join(', ')})`);
    process.exit(result.status ?? 1);
  }
}
console.log(
  `\n✔ all checks passed in ${((Date.now() - started) / 1000).toFixed(1)}s (${timings.join(', ')})`,
);
