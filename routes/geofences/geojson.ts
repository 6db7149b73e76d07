import { NAME_MAX, nameProblem, type FenceInput, type UserFence } from '../../plugins/domain/user-geofences/fence-rules.js'
import { userPolygonProblem, type LatLon } from '../../lib/polygon.js'

export interface ImportProblem { featureName: string, reason: string }

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Characters no stored name may hold (the FreeText rule of schemas/common.ts). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\p{Cs}/gu

/** The name a feature goes by in reports: its `name` (or `displayName`) property, else its position. */
const featureName = (feature: unknown, index: number): string => {
  const props = isObject(feature) && isObject(feature.properties) ? feature.properties : {}
  const name = props.name ?? props.displayName
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : `feature ${index + 1}`
}

/**
 * Reads the features of an uploaded FeatureCollection into fence inputs, one problem per bad feature:
 * only Polygon geometries without holes (the engine ignores holes, so a fence with one would match
 * inside it), GeoJSON's [lon, lat] order, and the same polygon rules as a drawn fence. Names longer
 * than 50 characters are cut, with a warning.
 */
export function readFeatures (features: unknown[]): { inputs: FenceInput[], errors: ImportProblem[], warnings: string[] } {
  const inputs: FenceInput[] = []
  const errors: ImportProblem[] = []
  const warnings: string[] = []
  features.forEach((feature, index) => {
    const name = featureName(feature, index)
    const fail = (reason: string) => { errors.push({ featureName: name, reason }) }
    if (!isObject(feature) || feature.type !== 'Feature' || !isObject(feature.geometry)) return fail('not a GeoJSON Feature with a geometry')
    const geometry = feature.geometry
    if (geometry.type !== 'Polygon') return fail(`geometry must be a Polygon (got ${String(geometry.type)})`)
    const rings = geometry.coordinates
    if (!Array.isArray(rings) || rings.length === 0) return fail('polygon has no coordinates')
    if (rings.length > 1) return fail('polygons with holes are not supported')
    const ring = rings[0]
    if (!Array.isArray(ring) || !ring.every((p) => Array.isArray(p) && p.length >= 2 && p.every((v) => typeof v === 'number'))) {
      return fail('coordinates must be [longitude, latitude] pairs of numbers')
    }
    const points = (ring as number[][]).map(([lon, lat]) => [lat, lon] as LatLon)
    const problem = userPolygonProblem(points)
    if (problem !== null) {
      return fail(/outside/.test(problem) ? `${problem} (GeoJSON coordinates are [longitude, latitude])` : problem)
    }
    let displayName = name
    if (displayName.length > NAME_MAX) {
      displayName = displayName.slice(0, NAME_MAX).trim()
      warnings.push(`"${name}" was shortened to "${displayName}"`)
    }
    const badName = nameProblem(displayName)
    if (badName !== null) return fail(badName)
    const props = isObject(feature.properties) ? feature.properties : {}
    // A group of a file is free text like the form's: control, bidi-override and lone-surrogate characters are dropped.
    const group = typeof props.group === 'string' ? props.group.replace(UNSAFE_TEXT, '').normalize('NFC').slice(0, 100) : ''
    inputs.push({ displayName, groupName: group, polygon: points })
  })
  return { inputs, errors, warnings }
}

/** The user's fences as a FeatureCollection ([lon, lat], closed rings), for download. */
export function toFeatureCollection (fences: UserFence[]) {
  return {
    type: 'FeatureCollection' as const,
    features: fences.map((f) => ({
      type: 'Feature' as const,
      properties: { name: f.kojiName, displayName: f.displayName, group: f.groupName, status: f.status },
      geometry: { type: 'Polygon' as const, coordinates: [[...f.polygon, f.polygon[0] as LatLon].map(([lat, lon]) => [lon, lat] as LatLon)] }
    }))
  }
}
