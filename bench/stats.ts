/** The middle run of a benchmark's repeated runs (the upper middle of an even count). */
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

/** The fastest and slowest runs, in whole milliseconds, as "fastest–slowest". */
export const spread = (values: readonly number[]): string => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`
