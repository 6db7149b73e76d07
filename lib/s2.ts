/**
 * The S2 cell id of a point at a given level (the scanner keys weather by level-10 cells), following
 * the S2 library: the point on the unit sphere is projected to one of six cube faces, mapped to (s, t)
 * with the quadratic transform, then walked down the face's Hilbert curve one level at a time.
 */

const MAX_LEVEL = 30
/** kIJtoPos[orientation][ij]: the position of sub-cell (i, j) along the curve. */
const IJ_TO_POS = [[0, 1, 3, 2], [0, 3, 1, 2], [2, 3, 1, 0], [2, 1, 3, 0]] as const
/** How a sub-cell's orientation differs from its parent's, by position (swap = 1, invert = 2). */
const POS_TO_ORIENTATION = [1, 0, 0, 3] as const

function faceUv (x: number, y: number, z: number): [number, number, number] {
  const ax = Math.abs(x)
  const ay = Math.abs(y)
  const az = Math.abs(z)
  let face = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2)
  const component = [x, y, z][face] as number
  if (component < 0) face += 3
  switch (face) {
    case 0: return [0, y / x, z / x]
    case 1: return [1, -x / y, z / y]
    case 2: return [2, -x / z, -y / z]
    case 3: return [3, z / x, y / x]
    case 4: return [4, z / y, -x / y]
    default: return [5, -y / z, -x / z]
  }
}

const uvToSt = (u: number) => (u >= 0 ? 0.5 * Math.sqrt(1 + 3 * u) : 1 - 0.5 * Math.sqrt(1 - 3 * u))
const stToIj = (s: number) => Math.max(0, Math.min(2 ** MAX_LEVEL - 1, Math.floor(s * 2 ** MAX_LEVEL)))

/** The unsigned 64-bit cell id. */
export function s2CellId (lat: number, lon: number, level: number): bigint {
  const phi = (lat * Math.PI) / 180
  const theta = (lon * Math.PI) / 180
  const [face, u, v] = faceUv(Math.cos(phi) * Math.cos(theta), Math.cos(phi) * Math.sin(theta), Math.sin(phi))
  const i = stToIj(uvToSt(u))
  const j = stToIj(uvToSt(v))
  let orientation = face & 1
  let pos = 0n
  for (let k = MAX_LEVEL - 1; k >= MAX_LEVEL - level; k--) {
    const ij = (((i >> k) & 1) << 1) | ((j >> k) & 1)
    const p = IJ_TO_POS[orientation]?.[ij] as number
    pos = (pos << 2n) | BigInt(p)
    orientation ^= POS_TO_ORIENTATION[p as 0 | 1 | 2 | 3]
  }
  const shift = BigInt(2 * (MAX_LEVEL - level))
  return (BigInt(face) << 61n) | (pos << (shift + 1n)) | (1n << shift)
}

/** The id as the scanner stores it: Go's int64 conversion of the unsigned id (negative on faces 4 and 5). */
export const s2CellIdSigned = (lat: number, lon: number, level: number): bigint => BigInt.asIntN(64, s2CellId(lat, lon, level))
