/**
 * Statistics for measurements, shared by the tests and the benchmarks (bench/ builds on
 * test/support, never the reverse). These machines are noisy: compare medians, not means.
 */

/** The median; the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("the median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
