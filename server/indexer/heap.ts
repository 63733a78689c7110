/**
 * Node flags the indexer process runs with: `npm run indexer` and `npm run bench:indexer` in
 * package.json (heap.test.ts keeps them equal to this list) and the tests' indexer processes.
 *
 * The indexer's live set stays near 300 MiB whatever the range size (target logs per range,
 * streamed parts and events per write bound it), but V8 sizes the heap from the machine (4 GiB
 * on this 24 GiB box) and collects lazily below that: at `--scale 3` garbage took the process
 * to 1,037 MiB. A 768 MiB old space bounds it (639–703 MiB). A small limit also lowers V8's
 * heap growing factor (to ~1.9 at 768 MiB), which made full collections frequent and cost ~10 %
 * at scale 1; growing by 4×, the factor of large heaps, keeps them as rare as without the cap
 * until the cap binds (docs/benchmarks.md).
 */
export const INDEXER_NODE_FLAGS = ['--max-old-space-size=768', '--heap-growing-percent=300'] as const;
