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

/** The process and its descendants (cluster workers, helpers): every thread's children (Linux ≥ 3.5). */
function processTree(pid: number): number[] {
  const all = [pid];
  for (let index = 0; index < all.length; index++) {
    const each = all[index] as number;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${each}/task`);
    } catch {} // gone
    for (const task of tasks)
      all.push(...readOr(`/proc/${each}/task/${task}/children`).split(' ').filter(Boolean).map(Number));
  }
  return all;
}

/** /proc/<pid>/stat's fields after the parenthesized command name (index 0 is field 3, state). */
function statFields(pid: number): string[] {
  const stat = readOr(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
  // utime and stime, fields 14 and 15 (0 for a process that is gone).
  const cpuTicks = (fields: string[]) => Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return processTree(pid).reduce((sum, each) => sum + cpuTicks(statFields(each)), 0) / ticksPerSecond;
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
