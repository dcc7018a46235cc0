/**
 * A small seeded pseudo-random generator for the fault suites (sfc32, seeded through
 * splitmix32): the same seed gives the same sequence on every machine, so a failing run can
 * be replayed from the seed it prints.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of choices) total += w;
    let x = this.float() * total;
    for (const [w, v] of choices) {
      x -= w;
      if (x < 0) return v;
    }
    return choices[choices.length - 1]![1];
  }

  /** A new generator seeded from this one (independent streams for concurrent actors). */
  fork(): Rng {
    return new Rng(this.u32());
  }
}

/**
 * The seed named by an environment variable (decimal or 0x hex), or a fresh random one.
 * Suites print the seed they used, so any run can be replayed with the variable.
 */
export function seedFromEnv(name: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return Math.floor(Math.random() * 2 ** 32) >>> 0;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 32) throw new Error(`${name} must be an integer in [0, 2^32), got "${raw}"`);
  return n;
}

/** A positive integer from an environment variable, or the default. */
export function countFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}
