import { alarmAreas, distanceMetres, num, type Place } from './alarm-match.js'
import type { MemberState } from './alarm-explain.js'
import { boxContains, pointInPolygon, type BoundingBox, type LatLon } from './polygon.js'
import type { AlarmType } from '../schemas/alarm-types.js'

/**
 * The recent list of "why didn't I get that alert?" (docs/explanations.md): which of the events the
 * scanner saw are in a member's places, in what order, and which page of them is asked for. Pure: the
 * caller reads the member, the fences and the events.
 */

/** A fence as the engine's list gives it: its name, one polygon or several, each with its box. */
export interface PlaceFence { name: string, parts: ReadonlyArray<{ path: LatLon[], box: BoundingBox }> }

/** Where a member could have been alerted: their fences, and per profile a circle of its largest alarm distance. */
export interface Places<F extends PlaceFence = PlaceFence> { fences: F[], circles: Array<{ place: Place, radius: number }> }

/**
 * The events seen in a member's places, by index: when, where, and the order among events of the same
 * second and place (a stop's two quests). A list of indices rather than of objects: a busy city's hour
 * holds tens of thousands of pokemon in a member's places, and only a page of them is ever described.
 */
export interface SeenList {
  size: number
  at: (i: number) => number
  latitude: (i: number) => number
  longitude: (i: number) => number
  rank: (i: number) => number
}

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

/** Whether a point is in the places, and a key naming the places (equal keys, equal places). */
export interface PlaceTest { test: (lat: number, lon: number) => boolean, key: string }

/** The test of a point against the places: the fences' boxes before their polygons, a circle's box before its distance. */
export function placeTest (places: Places): PlaceTest {
  // Profiles sharing a location share one circle, the largest.
  const circles = new Map<string, { place: Place, radius: number }>()
  for (const c of places.circles) {
    const key = `${c.place.latitude},${c.place.longitude}`
    const known = circles.get(key)
    if (known === undefined || known.radius < c.radius) circles.set(key, c)
  }
  const rounds = [...circles.values()].map((c) => ({ ...c, box: circleBox(c) }))
  const parts = places.fences.flatMap((f) => f.parts)
  return {
    key: JSON.stringify([places.fences.map((f) => f.name).sort(), rounds.map((c) => [c.place.latitude, c.place.longitude, c.radius]).sort()]),
    test: (lat, lon) => {
      for (const p of parts) if (boxContains(p.box, lat, lon) && pointInPolygon(lat, lon, p.path)) return true
      for (const c of rounds) if (boxContains(c.box, lat, lon) && distanceMetres(c.place, lat, lon) <= c.radius) return true
      return false
    }
  }
}

/**
 * The page after `cursor` of the events, newest first (events of one second by place, then rank), as
 * indices into the list. A cursor is `<seen at>.<events of that second already listed>`: the next page
 * goes on where the last one ended while new events arrive at the top, and it says nothing of where
 * anything is. Only the newest events the page can reach are sorted: their second is found among the
 * times alone (a numeric sort of a typed array), the rest is never ordered.
 */
export function pageOf (seen: SeenList, cursor: string | undefined, limit: number): { page: number[], nextCursor: string | null } {
  const [cursorAt, skip] = cursor === undefined ? [Infinity, 0] : cursor.split('.').map(Number) as [number, number]
  const after: number[] = []
  for (let i = 0; i < seen.size; i++) if (seen.at(i) <= cursorAt) after.push(i)
  let reach = after
  const needed = skip + limit
  if (after.length > needed) {
    const times = Float64Array.from(after, (i) => seen.at(i)).sort()
    const oldestReached = times[times.length - needed] as number
    reach = after.filter((i) => seen.at(i) >= oldestReached)
  }
  reach.sort((a, b) => seen.at(b) - seen.at(a) || seen.latitude(a) - seen.latitude(b) || seen.longitude(a) - seen.longitude(b) || seen.rank(a) - seen.rank(b))
  let start = 0
  while (start < reach.length && start < skip && seen.at(reach[start] as number) === cursorAt) start++
  const page = reach.slice(start, start + limit)
  const end = start + page.length
  const last = page[page.length - 1]
  if (last === undefined || end >= after.length) return { page, nextCursor: null }
  const lastAt = seen.at(last)
  let sameSecond = 0
  for (let i = end - 1; i >= 0 && seen.at(reach[i] as number) === lastAt; i--) sameSecond++
  return { page, nextCursor: `${lastAt}.${sameSecond}` }
}
