/** The median of some numbers (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The value at quantile `q` (0..1) of a sample, nearest rank. */
export function quantile(values: ArrayLike<number>, q: number): number {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** A ratio over rounds: the median of the per-round ratios, and their smallest and largest. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly rounds: number;
}

/** Pairs `a[i] / b[i]` round by round (the two were measured in the same round) and summarises. */
export function pairedRatio(a: readonly number[], b: readonly number[]): Spread {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (Number.isFinite(x) && Number.isFinite(y) && y > 0) ratios.push(x / y);
  }
  return {
    median: median(ratios),
    min: ratios.length === 0 ? Number.NaN : Math.min(...ratios),
    max: ratios.length === 0 ? Number.NaN : Math.max(...ratios),
    rounds: ratios.length,
  };
}
