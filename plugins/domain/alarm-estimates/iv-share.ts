/**
 * The share of wild spawns whose IV percentage lies in min..max when each of the three stats is uniform
 * over 0..15 (4,096 equally likely combinations): how daily species counts become an IV filter's count
 * where the scanner keeps no IV statistics.
 */
const SUM_WAYS: number[] = (() => {
  const ways = new Array<number>(46).fill(0)
  for (let a = 0; a <= 15; a++) for (let d = 0; d <= 15; d++) for (let s = 0; s <= 15; s++) ways[a + d + s] = (ways[a + d + s] ?? 0) + 1
  return ways
})()

export function uniformIvShare (min: number, max: number): number {
  let hit = 0
  for (let sum = 0; sum <= 45; sum++) {
    const iv = (sum * 100) / 45
    if (iv >= min && iv <= max) hit += SUM_WAYS[sum] ?? 0
  }
  return hit / 4096
}
