/**
 * A small seeded PRNG (sfc32 seeded through splitmix32): the same seed gives the same stream on
 * every machine, which is what makes simulator fixtures reproducible.
 */
export interface Random {
  next(): number;
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Uniform bigint in [min, max]. */
  bigint(min: bigint, max: bigint): bigint;
  bytes32(): `0x${string}`;
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const splitmix = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    bigint: (min, max) => {
      const span = max - min + 1n;
      let value = 0n;
      for (let i = 0; i < 4; i++) value = (value << 32n) | BigInt(Math.floor(next() * 4294967296));
      return min + (value % span);
    },
    bytes32: () => {
      let hex = '';
      for (let i = 0; i < 8; i++)
        hex += Math.floor(next() * 4294967296)
          .toString(16)
          .padStart(8, '0');
      return `0x${hex}`;
    },
  };
  return random;
}
