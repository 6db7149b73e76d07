import { alarmAreas, distanceMetres, num, type Place } from './alarm-match.js'
import type { MemberState } from './alarm-explain.js'
import { boxContains, pointInPolygon, type BoundingBox, type LatLon } from './polygon.js'
import type { AlarmType } from '../schemas/alarm-types.js'

/**
 * The recent list of "why didn't I get that alert?" (docs/explanations.md): which of the events the
 * scanner saw are in a member's places, in what order, and which page of them is asked for. Pure: the
 * caller reads the member, the fences and the events.
 */

/** A fence as the engine's list gives it: one polygon or several, each with its box. */
export interface PlaceFence { parts: ReadonlyArray<{ path: LatLon[], box: BoundingBox }> }

/** Where a member could have been alerted: their fences, and per profile a circle of its largest alarm distance. */
export interface Places<F extends PlaceFence = PlaceFence> { fences: F[], circles: Array<{ place: Place, radius: number }> }

/** An event seen: when, where, and its order among events of the same second and place (a stop's two quests). */
export interface Seen { at: number, latitude: number, longitude: number, rank: number }

const located = (p: Place | null | undefined): p is Place => p !== null && p !== undefined && !(p.latitude === 0 && p.longitude === 0)

/**
 * The places of a member for some alarm types: the areas of every profile, the override areas of the
 * alarms, and around each located profile the largest distance of its distance alarms.
 */
export function placesOf<F extends PlaceFence> (m: MemberState, types: readonly AlarmType[], byName: ReadonlyMap<string, F>): Places<F> {
  const names = new Set<string>()
  for (const p of m.profiles) for (const a of p.areas) names.add(a)
  const radius = new Map<number, number>()
  for (const { type, row } of m.alarms) {
    if (!types.includes(type)) continue
    const profileNo = num(row, 'profile_no', m.currentProfileNo)
    const distance = num(row, 'distance')
    if (distance > 0) radius.set(profileNo, Math.max(distance, radius.get(profileNo) ?? 0))
    else for (const a of alarmAreas(row, m.profiles.find((p) => p.profileNo === profileNo)?.areas ?? [])) names.add(a)
  }
  return {
    fences: [...names].flatMap((name) => byName.get(name) ?? []),
    circles: [...radius].flatMap(([profileNo, r]) => {
      const place = m.profiles.find((p) => p.profileNo === profileNo)?.place
      return located(place) ? [{ place, radius: r }] : []
    })
  }
}

function circleBox ({ place, radius }: { place: Place, radius: number }): BoundingBox {
  const dLat = radius / 111_320
  const dLon = radius / (111_320 * Math.max(0.01, Math.cos((place.latitude * Math.PI) / 180)))
  return { minLat: place.latitude - dLat, maxLat: place.latitude + dLat, minLon: place.longitude - dLon, maxLon: place.longitude + dLon }
}

/** The boxes around the places: what the scanner's rows are read within. */
export const boxesOf = (places: Places): BoundingBox[] => [...places.fences.flatMap((f) => f.parts.map((p) => p.box)), ...places.circles.map(circleBox)]

export const inPlaces = (places: Places, lat: number, lon: number): boolean =>
  places.circles.some((c) => distanceMetres(c.place, lat, lon) <= c.radius) ||
  places.fences.some((f) => f.parts.some((p) => boxContains(p.box, lat, lon) && pointInPolygon(lat, lon, p.path)))

/** Newest first; events of one second by place, then by their rank. */
const newestFirst = (a: Seen, b: Seen) => b.at - a.at || a.latitude - b.latitude || a.longitude - b.longitude || a.rank - b.rank

/**
 * The page after `cursor` of the events in the places, newest first. A cursor is `<seen at>.<events of
 * that second already listed>`: the next page goes on where the last one ended while new events arrive
 * at the top, and it says nothing of where anything is.
 */
export function pageOf<E extends Seen> (seen: readonly E[], places: Places, cursor: string | undefined, limit: number): { page: E[], nextCursor: string | null } {
  const listed = seen.filter((c) => inPlaces(places, c.latitude, c.longitude)).sort(newestFirst)
  const [cursorAt, cursorSkip] = cursor === undefined ? [Infinity, 0] : cursor.split('.').map(Number) as [number, number]
  let start = listed.findIndex((c) => c.at <= cursorAt)
  if (start < 0) start = listed.length
  const groupStart = start
  while (start < listed.length && start - groupStart < cursorSkip && (listed[start] as E).at === cursorAt) start++
  const page = listed.slice(start, start + limit)
  const end = start + page.length
  const last = page[page.length - 1]
  if (last === undefined || end >= listed.length) return { page, nextCursor: null }
  let sameSecond = 0
  for (let i = end - 1; i >= 0 && (listed[i] as E).at === last.at; i--) sameSecond++
  return { page, nextCursor: `${last.at}.${sameSecond}` }
}
