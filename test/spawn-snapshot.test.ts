import t from 'tap'
import { SpawnSnapshotBuilder } from '../lib/spawn-snapshot.js'
import { parsePvp } from '../lib/alarm-match.js'
import type { BoundingBox } from '../lib/polygon.js'

/** A row of `SELECT ${SNAPSHOT_COLUMNS}`. */
const row = (o: Partial<Record<'id' | 'form' | 'atk' | 'def' | 'sta' | 'cp' | 'level' | 'gender' | 'size' | 'weight' | 'expire' | 'firstSeen' | 'lat' | 'lon', number | null>> & { pvp?: string | null }): unknown[] =>
  [o.id ?? 1, o.form ?? null, o.atk ?? null, o.def ?? null, o.sta ?? null, o.cp ?? null, o.level ?? null, o.gender ?? null, o.size ?? null, o.weight ?? null, o.expire ?? null, o.firstSeen ?? 1000, o.lat ?? 0, o.lon ?? 0, o.pvp ?? null]

t.test('every row comes back as the matchers take it, nulls and PvP ranks included', async (t) => {
  const pvp = '{"great":[{"rank":3,"cp":1498,"cap":50,"capped":true},{"rank":40,"cp":1400,"cap":51}],"little":[{"rank":1,"cp":499,"cap":50}],"ultra":"not a list"}'
  const builder = new SpawnSnapshotBuilder()
  builder.add(row({ id: 25, form: 598, atk: 15, def: 0, sta: 7, cp: 1234, level: 35, gender: 2, size: 5, weight: 6.123456789012, expire: 1900, firstSeen: 1000, lat: 2, lon: 2, pvp }))
  builder.add(row({ id: 7, lat: 1, lon: 1 }))
  const snapshot = builder.finish(5)
  t.equal(snapshot.size, 2)
  t.equal(snapshot.takenAt, 5)
  // Sorted by latitude: the second row added is first.
  t.same(snapshot.spawn(0, true), { pokemonId: 7, form: 0, atk: null, def: null, sta: null, cp: null, level: null, gender: null, size: null, weight: null, secondsLeft: null, pvp: null })
  const full = snapshot.spawn(1, true)
  t.same(full, { pokemonId: 25, form: 598, atk: 15, def: 0, sta: 7, cp: 1234, level: 35, gender: 2, size: 5, weight: 6.123456789012, secondsLeft: 900, pvp: parsePvp(pvp) })
  t.equal(snapshot.spawn(1, false).pvp, null, 'ranks only when asked for')
  t.ok(snapshot.bytes > 0)
})

t.test('the rows of the boxes, first seen within the window, and no other', async (t) => {
  const builder = new SpawnSnapshotBuilder()
  const points: Array<[number, number, number]> = []
  // A 20 × 20 grid of rows, one every 0.1°, first seen at 1000 + lat·10.
  for (let y = 0; y < 20; y++) for (let x = 0; x < 20; x++) points.push([y / 10, x / 10, 1000 + y])
  for (const [lat, lon, firstSeen] of [...points].reverse()) builder.add(row({ lat, lon, firstSeen }))
  const snapshot = builder.finish(0)
  const inside = (boxes: BoundingBox[], since: number) => {
    const found: string[] = []
    snapshot.forEachIn(boxes, since, (i) => { found.push(`${snapshot.lat(i).toFixed(1)},${snapshot.lon(i).toFixed(1)}`) })
    return found.sort()
  }
  const expected = (boxes: BoundingBox[], since: number) => points
    .filter(([lat, lon, seen]) => seen >= since && boxes.some((b) => lat >= b.minLat && lat <= b.maxLat && lon >= b.minLon && lon <= b.maxLon))
    .map(([lat, lon]) => `${lat.toFixed(1)},${lon.toFixed(1)}`).sort()
  const a = { minLat: 0.2, maxLat: 0.4, minLon: 0.2, maxLon: 0.4 }
  const b = { minLat: 1.0, maxLat: 1.5, minLon: 1.5, maxLon: 1.9 }
  const edge = { minLat: 0, maxLat: 0, minLon: 0, maxLon: 1.9 }
  t.same(inside([a], 0), expected([a], 0), 'one box, its edges included')
  t.equal(inside([a], 0).length, 9)
  t.same(inside([a, b], 0), expected([a, b], 0), 'two boxes apart: not the envelope between them')
  t.same(inside([a, b], 1012), expected([a, b], 1012), 'only rows first seen since the window began')
  t.same(inside([edge], 0), expected([edge], 0), 'the lowest latitude')
  t.same(inside([], 0), [], 'no box, no row')
  t.same(inside([{ minLat: 5, maxLat: 6, minLon: 0, maxLon: 2 }], 0), [], 'a box beyond every row')
})
