import t from 'tap'
import { firstContaining, pointInPolygon, selfIntersects, userPolygonProblem, withBox, type LatLon } from '../lib/polygon.js'
import { s2CellId, s2CellIdSigned } from '../lib/s2.js'

const square: LatLon[] = [[0, 0], [0, 10], [10, 10], [10, 0]]
/** A "C" opening east: the notch between lat 3 and 7 east of lon 3 is outside. */
const concave: LatLon[] = [[0, 0], [0, 10], [3, 10], [3, 3], [7, 3], [7, 10], [10, 10], [10, 0]]

t.test('point in polygon: convex and concave', async (t) => {
  t.ok(pointInPolygon(5, 5, square), 'centre of a square')
  t.notOk(pointInPolygon(15, 5, square), 'north of it')
  t.notOk(pointInPolygon(5, -1, square), 'west of it')
  t.ok(pointInPolygon(1, 8, concave), 'the lower arm of the C')
  t.ok(pointInPolygon(9, 8, concave), 'the upper arm')
  t.notOk(pointInPolygon(5, 8, concave), 'the notch between the arms')
  t.ok(pointInPolygon(5, 1, concave), 'the back of the C')
})

t.test('point in polygon: edges and vertices follow the half-open rule', async (t) => {
  // South and west edges are inside, north and east edges outside.
  t.ok(pointInPolygon(0, 5, square), 'on the south edge')
  t.ok(pointInPolygon(5, 0, square), 'on the west edge')
  t.notOk(pointInPolygon(10, 5, square), 'on the north edge')
  t.notOk(pointInPolygon(5, 10, square), 'on the east edge')
  t.ok(pointInPolygon(0, 0, square), 'south-west vertex')
  t.notOk(pointInPolygon(10, 10, square), 'north-east vertex')
  // Two fences sharing an edge: every point of that edge belongs to exactly one of them.
  const east: LatLon[] = [[0, 10], [0, 20], [10, 20], [10, 10]]
  for (const lat of [0, 2.5, 5, 9.99]) {
    const count = [square, east].filter((p) => pointInPolygon(lat, 10, p)).length
    t.equal(count, 1, `shared edge point (${lat}, 10) lies in exactly one fence`)
  }
})

t.test('point in polygon: fewer than 3 vertices is never a polygon', async (t) => {
  t.notOk(pointInPolygon(0, 0, []))
  t.notOk(pointInPolygon(0, 0, [[0, 0]]))
  t.notOk(pointInPolygon(0.5, 0.5, [[0, 0], [1, 1]]), 'a segment contains nothing')
})

t.test('the bounding-box prefilter finds what a full scan finds', async (t) => {
  const fences = Array.from({ length: 200 }, (_, i) => withBox({ name: `f${i}`, path: [[i, 0], [i, 1], [i + 1, 1], [i + 1, 0]] as LatLon[] }))
  for (const lat of [0.5, 37.2, 150.9, 199.99, 250]) {
    const naive = fences.find((f) => pointInPolygon(lat, 0.5, f.path))?.name ?? null
    t.equal(firstContaining(fences, lat, 0.5), naive, `lat ${lat}`)
  }
  const overlapping = [withBox({ name: 'outer', path: square }), withBox({ name: 'inner', path: [[4, 4], [4, 6], [6, 6], [6, 4]] as LatLon[] })]
  t.equal(firstContaining(overlapping, 5, 5), 'outer', 'the first matching fence in order wins')
})

t.test('user polygons: size, coordinates, repeats and self-intersection', async (t) => {
  t.equal(userPolygonProblem(square), null)
  t.equal(userPolygonProblem([...square, [0, 0]]), null, 'a repeated closing point is not counted')
  t.match(userPolygonProblem([[0, 0], [1, 1]]), /at least 3/)
  t.match(userPolygonProblem(Array.from({ length: 501 }, (_, i) => [Math.sin(i) * 0.1, Math.cos(i) * 0.1])), /at most 500/)
  t.match(userPolygonProblem([[91, 0], [0, 1], [1, 1]]), /latitude 91/)
  t.match(userPolygonProblem([[0, 181], [0, 1], [1, 1]]), /longitude 181/)
  t.match(userPolygonProblem([[0, 0], [0, 'x'], [1, 1]]), /pair of numbers/)
  t.match(userPolygonProblem('nope'), /array/)
  t.match(userPolygonProblem([[0, 0], [1, 1], [0, 0], [2, 0]]), /repeats a point/)
  const bowtie: LatLon[] = [[0, 0], [10, 10], [10, 0], [0, 10]]
  t.ok(selfIntersects(bowtie), 'a bow tie crosses itself')
  t.match(userPolygonProblem(bowtie), /cross/)
  t.notOk(selfIntersects(concave), 'a concave ring does not')
  t.ok(selfIntersects([[0, 0], [0, 10], [5, 10], [5, 5], [0, 5], [0, 2]]), 'an edge running back along another')
})

t.test('S2 level-10 cell ids match the S2 library\'s', async (t) => {
  // Values computed with the s2-geometry package for the same points.
  t.equal(s2CellId(40.7128, -74.006, 10), 9926596584236122112n, 'New York (face 4: above the int64 range)')
  t.equal(s2CellIdSigned(40.7128, -74.006, 10), 9926596584236122112n - 2n ** 64n, 'stored signed, as the scanner does')
  t.equal(s2CellId(-33.86, 151.2, 10), 7715421526173941760n, 'Sydney')
  t.equal(s2CellIdSigned(-33.86, 151.2, 10), 7715421526173941760n)
  t.equal(s2CellId(40.7128, -74.006, 10), s2CellId(40.7129, -74.0061, 10), 'nearby points share a cell')
})
