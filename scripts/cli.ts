import { type Config, ConfigError, parseConfig, webServingProblems } from '../server/config';

/**
 * The configuration of this script's process, parsed once from its environment, or a readable
 * message naming the bad variable and exit code 1. Each script parses it once at start and passes
 * it (and what it builds from it) down.
 */
export function loadConfigOrExit(): Config {
  try {
    return parseConfig(process.env);
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}

/** The configuration of the web server: {@link loadConfigOrExit} plus what serving pages needs. */
export function loadWebConfigOrExit(): Config {
  const config = loadConfigOrExit();
  const problems = webServingProblems(config);
  if (problems.length > 0) {
    console.error(new ConfigError(problems).message);
    process.exit(1);
  }
  return config;
}
