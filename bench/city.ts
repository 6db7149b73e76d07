import type { LatLon } from '../lib/polygon.js'

/** The bench city: 20 × 10 fences of about 2 × 2.8 km (bench:estimates, bench:explain). */
export const CITY = { lat: 51.0, lon: 6.8, rows: 10, cols: 20, dLat: 0.02, dLon: 0.04 }

/** A star-shaped ring of 16 points inside a grid cell: concave like real fences, never self-crossing. */
export function fence (row: number, col: number): LatLon[] {
  const cLat = CITY.lat + (row + 0.5) * CITY.dLat
  const cLon = CITY.lon + (col + 0.5) * CITY.dLon
  return Array.from({ length: 16 }, (_, i) => {
    const angle = (i / 16) * 2 * Math.PI
    const r = i % 2 === 0 ? 0.5 : 0.42
    return [cLat + Math.sin(angle) * r * CITY.dLat, cLon + Math.cos(angle) * r * CITY.dLon] as LatLon
  })
}
