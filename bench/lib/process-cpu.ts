import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Direct children of a process (every thread's children list, Linux ≥ 3.5). */
export function childPids(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) =>
    readOr(`/proc/${pid}/task/${task}/children`).split(' ').filter(Boolean).map(Number),
  );
}

/** The process and all its descendants (cluster workers, helpers). */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let index = 0; index < all.length; index++) all.push(...childPids(all[index] as number));
  return all;
}

/** /proc/<pid>/stat's fields after the parenthesized command name (index 0 is field 3, state). */
function statFields(pid: number): string[] {
  const stat = readOr(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU seconds one process has used so far (0 once it is gone). */
function cpuSecondsOf(pid: number): number {
  const fields = statFields(pid);
  // utime is field 14, stime 15.
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / ticksPerSecond;
}

/** The parent of a process on this machine, or undefined when /proc does not list it. */
export function parentPid(pid: number): number | undefined {
  const ppid = Number(statFields(pid)[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/**
 * CPU seconds used by a server: its process and every descendant. A worker that exits between
 * two readings takes its time with it, so read around runs in which the tree is stable.
 */
export function treeCpuSeconds(pid: number): number {
  return processTree(pid).reduce((sum, each) => sum + cpuSecondsOf(each), 0);
}

/**
 * CPU seconds of a server that forks a process per connection (PostgreSQL's postmaster): the
 * living tree plus what its exited children used (cutime + cstime, fields 16 and 17), so that
 * connections closed between two readings still count.
 */
export function forkingServerCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  const reaped = (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) / ticksPerSecond;
  return treeCpuSeconds(pid) + reaped;
}
