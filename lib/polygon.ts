/**
 * Plane geometry over geofence rings whose points are [lat, lon] (the engine's Poracle format). Fences
 * are small enough that treating degrees as planar coordinates is what both engines do as well.
 */

export type LatLon = [number, number]

export interface BoundingBox {
  minLat: number
  maxLat: number
  minLon: number
  maxLon: number
}

export const MIN_POINTS = 3
export const MAX_POINTS = 500

export function boundingBox (path: readonly LatLon[]): BoundingBox {
  let minLat = Infinity
  let maxLat = -Infinity
  let minLon = Infinity
  let maxLon = -Infinity
  for (const [lat, lon] of path) {
    if (lat < minLat) minLat = lat
    if (lat > maxLat) maxLat = lat
    if (lon < minLon) minLon = lon
    if (lon > maxLon) maxLon = lon
  }
  return { minLat, maxLat, minLon, maxLon }
}

export const boxContains = (box: BoundingBox, lat: number, lon: number): boolean =>
  lat >= box.minLat && lat <= box.maxLat && lon >= box.minLon && lon <= box.maxLon

/**
 * Ray casting with the half-open crossing rule: an edge counts when one end is strictly above the point's
 * latitude and the other is not, and the crossing lies strictly east of the point. Points on an edge or a
 * vertex are therefore inside for the south/west sides of a fence and outside for its north/east sides,
 * so a point on the border shared by two adjacent fences lies in exactly one of them. Fewer than three
 * vertices is never a polygon: false.
 */
export function pointInPolygon (lat: number, lon: number, path: readonly LatLon[]): boolean {
  const n = path.length
  if (n < MIN_POINTS) return false
  let inside = false
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const [latI, lonI] = path[i] as LatLon
    const [latJ, lonJ] = path[j] as LatLon
    if ((latI > lat) !== (latJ > lat) && lon < ((lonJ - lonI) * (lat - latI)) / (latJ - latI) + lonI) inside = !inside
  }
  return inside
}

/** A ring without the repeated closing point GeoJSON and some drawing tools add. */
export function openRing (path: readonly LatLon[]): LatLon[] {
  const first = path[0]
  const last = path[path.length - 1]
  if (path.length > 1 && first !== undefined && last !== undefined && first[0] === last[0] && first[1] === last[1]) return path.slice(0, -1)
  return [...path]
}

const cross = (o: LatLon, a: LatLon, b: LatLon) => (a[1] - o[1]) * (b[0] - o[0]) - (a[0] - o[0]) * (b[1] - o[1])
const onSegment = (p: LatLon, q: LatLon, r: LatLon) =>
  Math.min(p[0], r[0]) <= q[0] && q[0] <= Math.max(p[0], r[0]) && Math.min(p[1], r[1]) <= q[1] && q[1] <= Math.max(p[1], r[1])

function segmentsIntersect (p1: LatLon, p2: LatLon, p3: LatLon, p4: LatLon): boolean {
  const d1 = cross(p3, p4, p1)
  const d2 = cross(p3, p4, p2)
  const d3 = cross(p1, p2, p3)
  const d4 = cross(p1, p2, p4)
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true
  return (d1 === 0 && onSegment(p3, p1, p4)) || (d2 === 0 && onSegment(p3, p2, p4)) ||
    (d3 === 0 && onSegment(p1, p3, p2)) || (d4 === 0 && onSegment(p1, p4, p2))
}

/**
 * Whether any two edges of the closed ring touch other than neighbours at their shared vertex. A ring
 * that crosses itself has no well-defined inside (ray casting would give a checkerboard), so user fences
 * with one are refused. O(n²) on at most 500 points: about 125,000 edge pairs.
 */
export function selfIntersects (path: readonly LatLon[]): boolean {
  const n = path.length
  for (let i = 0; i < n; i++) {
    const a1 = path[i] as LatLon
    const a2 = path[(i + 1) % n] as LatLon
    for (let j = i + 1; j < n; j++) {
      // Neighbouring edges share a vertex by construction.
      if (j === i + 1 || (i === 0 && j === n - 1)) continue
      if (segmentsIntersect(a1, a2, path[j] as LatLon, path[(j + 1) % n] as LatLon)) return true
    }
  }
  return false
}

/**
 * Why a ring cannot be served as a fence, or null when it can: [lat, lon] pairs of finite numbers on the
 * globe, at least 3 distinct points once a repeated closing point is dropped. Admin fences from Koji must
 * pass this; they may be as large and as intricate as the administrator drew them.
 */
export function ringProblem (raw: unknown): string | null {
  if (!Array.isArray(raw)) return 'polygon must be an array of [lat, lon] pairs'
  for (const point of raw) {
    if (!Array.isArray(point) || point.length !== 2 || !point.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      return 'every point must be a [lat, lon] pair of numbers'
    }
    const [lat, lon] = point as LatLon
    if (lat < -90 || lat > 90) return `latitude ${lat} is outside -90..90`
    if (lon < -180 || lon > 180) return `longitude ${lon} is outside -180..180`
  }
  const ring = openRing(raw as LatLon[])
  if (ring.length < MIN_POINTS) return `polygon must have at least ${MIN_POINTS} points (got ${ring.length})`
  return null
}

/** Why a user-drawn ring cannot be a fence: `ringProblem`, at most 500 points, no repeated vertex, no self-intersection. */
export function userPolygonProblem (raw: unknown): string | null {
  const problem = ringProblem(raw)
  if (problem !== null) return problem
  const ring = openRing(raw as LatLon[])
  if (ring.length > MAX_POINTS) return `polygon must have at most ${MAX_POINTS} points (got ${ring.length})`
  if (new Set(ring.map(([lat, lon]) => `${lat},${lon}`)).size !== ring.length) return 'polygon repeats a point'
  if (selfIntersects(ring)) return 'polygon edges cross each other'
  return null
}

export interface BoxedFence {
  name: string
  path: LatLon[]
  box: BoundingBox
}

export const withBox = <T extends { path: LatLon[] }>(fence: T): T & { box: BoundingBox } => ({ ...fence, box: boundingBox(fence.path) })

/** The first fence (in feed order) containing the point; the box test rules out almost every fence cheaply. */
export function firstContaining (fences: readonly BoxedFence[], lat: number, lon: number): string | null {
  for (const fence of fences) {
    if (boxContains(fence.box, lat, lon) && pointInPolygon(lat, lon, fence.path)) return fence.name
  }
  return null
}

const EARTH_RADIUS_KM = 6371.0088

/**
 * The area a ring encloses in km², its edges taken as straight lines in latitude/longitude (how the
 * engine's point-in-polygon test reads them): the trapezoid sum of R²·Δλ·(sin φ₁ + sin φ₂)/2, exact for
 * a latitude/longitude rectangle, so a "whole world" ring measures as the whole world.
 */
export function sphericalAreaKm2 (path: readonly LatLon[]): number {
  const ring = openRing(path)
  if (ring.length < 3) return 0
  const rad = Math.PI / 180
  let sum = 0
  for (let i = 0; i < ring.length; i++) {
    const [lat1, lon1] = ring[i] as LatLon
    const [lat2, lon2] = ring[(i + 1) % ring.length] as LatLon
    sum += (lon2 - lon1) * rad * (Math.sin(lat1 * rad) + Math.sin(lat2 * rad)) / 2
  }
  return Math.abs(sum) * EARTH_RADIUS_KM * EARTH_RADIUS_KM
}
