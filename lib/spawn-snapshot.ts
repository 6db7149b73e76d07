import { parsePvp, type Spawn } from './alarm-match.js'
import type { BoundingBox } from './polygon.js'

/**
 * The scanner's live pokemon as one read of Golbat's `pokemon` table, kept in columns: a number per row
 * and column in typed arrays (about 80 bytes a row and 8 a PvP rank), sorted by latitude, so that
 * an estimate walks only the rows in its fences' latitude band and builds a `Spawn` only for the rows
 * it tests. A busy city's 400,000 rows take about 35 MB; the same rows as the driver's arrays take
 * three times that.
 */

/** The columns a snapshot reads, in the order `add` takes them. */
export const SNAPSHOT_COLUMNS = 'pokemon_id, form, atk_iv, def_iv, sta_iv, cp, level, gender, size, weight, expire_timestamp, first_seen_timestamp, lat, lon, pvp'

const LEAGUES = ['little', 'great', 'ultra'] as const

type TypedArray = Float64Array | Int32Array | Int16Array | Uint16Array | Int8Array | Uint8Array
type TypedArrayOf<T extends TypedArray> = new (length: number) => T

/** A typed array that doubles as rows are added: the read streams in, its size unknown until the end. */
class Column<T extends TypedArray> {
  private data: T
  length = 0
  constructor (private readonly Kind: TypedArrayOf<T>) { this.data = new Kind(1024) }
  push (value: number): void {
    if (this.length === this.data.length) {
      const bigger = new this.Kind(this.data.length * 2)
      bigger.set(this.data)
      this.data = bigger
    }
    this.data[this.length++] = value
  }

  /** The values in `order` (row i of the result is row order[i] here), exactly as long as the rows. */
  permuted (order: Uint32Array): T {
    const out = new this.Kind(order.length)
    for (let i = 0; i < order.length; i++) out[i] = this.data[order[i] as number] as number
    return out
  }

  get values (): T { return this.data.subarray(0, this.length) as T }
}

/** null as a number in a column that has no NaN: a value no field of a spawn takes. */
const NONE = -1
const int = (v: unknown): number => (v === null || v === undefined ? NONE : Number(v))
const real = (v: unknown): number => (v === null || v === undefined ? Number.NaN : Number(v))
const orNull = (v: number): number | null => (v === NONE || Number.isNaN(v) ? null : v)

export class SpawnSnapshotBuilder {
  private readonly pokemonId = new Column(Int32Array)
  private readonly form = new Column(Int32Array)
  private readonly atk = new Column(Int8Array)
  private readonly def = new Column(Int8Array)
  private readonly sta = new Column(Int8Array)
  private readonly cp = new Column(Int32Array)
  private readonly level = new Column(Int16Array)
  private readonly gender = new Column(Int16Array)
  private readonly size = new Column(Int16Array)
  private readonly weight = new Column(Float64Array)
  private readonly expire = new Column(Float64Array)
  private readonly firstSeen = new Column(Float64Array)
  private readonly lat = new Column(Float64Array)
  private readonly lon = new Column(Float64Array)
  /** Where each row's PvP ranks start in the rank columns (and the next row's start where they end). */
  private readonly pvpStart = new Column(Int32Array)
  private readonly rankLeague = new Column(Uint8Array)
  private readonly rank = new Column(Uint16Array)
  private readonly rankCp = new Column(Uint16Array)
  private readonly rankCap = new Column(Uint8Array)
  private readonly rankCapped = new Column(Uint8Array)

  /** One row of `SELECT ${SNAPSHOT_COLUMNS}` as an array. */
  add (r: unknown[]): void {
    this.pokemonId.push(Number(r[0]))
    this.form.push(r[1] === null || r[1] === undefined ? 0 : Number(r[1]))
    this.atk.push(int(r[2]))
    this.def.push(int(r[3]))
    this.sta.push(int(r[4]))
    this.cp.push(int(r[5]))
    this.level.push(int(r[6]))
    this.gender.push(int(r[7]))
    this.size.push(int(r[8]))
    this.weight.push(real(r[9]))
    this.expire.push(real(r[10]))
    this.firstSeen.push(Number(r[11]))
    this.lat.push(Number(r[12]))
    this.lon.push(Number(r[13]))
    this.pvpStart.push(this.rank.length)
    const pvp = parsePvp(r[14])
    if (pvp === null) return
    LEAGUES.forEach((league, l) => {
      for (const e of pvp[league] ?? []) {
        this.rankLeague.push(l)
        this.rank.push(e.rank)
        this.rankCp.push(e.cp)
        this.rankCap.push(e.cap)
        this.rankCapped.push(e.capped ? 1 : 0)
      }
    })
  }

  /** The rows added, sorted by latitude; `takenAt` is when the read began (ms). */
  finish (takenAt: number): SpawnSnapshot {
    const lat = this.lat.values
    const order = new Uint32Array(lat.length)
    for (let i = 0; i < order.length; i++) order[i] = i
    order.sort((a, b) => (lat[a] as number) - (lat[b] as number))
    // A row's ranks stay where they are; the sorted row keeps its start and its own end.
    const starts = this.pvpStart.values
    const ends = new Int32Array(starts.length)
    for (let i = 0; i < starts.length; i++) ends[i] = i + 1 < starts.length ? starts[i + 1] as number : this.rank.length
    const pvpEnd = new Int32Array(order.length)
    for (let i = 0; i < order.length; i++) pvpEnd[i] = ends[order[i] as number] as number
    return new SpawnSnapshot(takenAt, {
      pokemonId: this.pokemonId.permuted(order),
      form: this.form.permuted(order),
      atk: this.atk.permuted(order),
      def: this.def.permuted(order),
      sta: this.sta.permuted(order),
      cp: this.cp.permuted(order),
      level: this.level.permuted(order),
      gender: this.gender.permuted(order),
      size: this.size.permuted(order),
      weight: this.weight.permuted(order),
      expire: this.expire.permuted(order),
      firstSeen: this.firstSeen.permuted(order),
      lat: this.lat.permuted(order),
      lon: this.lon.permuted(order),
      pvpStart: this.pvpStart.permuted(order),
      pvpEnd,
      rankLeague: this.rankLeague.values.slice(),
      rank: this.rank.values.slice(),
      rankCp: this.rankCp.values.slice(),
      rankCap: this.rankCap.values.slice(),
      rankCapped: this.rankCapped.values.slice()
    })
  }
}

interface Columns {
  pokemonId: Int32Array
  form: Int32Array
  atk: Int8Array
  def: Int8Array
  sta: Int8Array
  cp: Int32Array
  level: Int16Array
  gender: Int16Array
  size: Int16Array
  weight: Float64Array
  expire: Float64Array
  firstSeen: Float64Array
  lat: Float64Array
  lon: Float64Array
  pvpStart: Int32Array
  pvpEnd: Int32Array
  rankLeague: Uint8Array
  rank: Uint16Array
  rankCp: Uint16Array
  rankCap: Uint8Array
  rankCapped: Uint8Array
}

export class SpawnSnapshot {
  readonly size: number
  constructor (readonly takenAt: number, private readonly c: Columns) { this.size = c.lat.length }

  /** Bytes held by the columns. */
  get bytes (): number { return Object.values(this.c).reduce((sum: number, column: TypedArray) => sum + column.byteLength, 0) }

  pokemonId (i: number): number { return this.c.pokemonId[i] as number }
  lat (i: number): number { return this.c.lat[i] as number }
  lon (i: number): number { return this.c.lon[i] as number }
  /** Unix seconds the scanner first saw row i. */
  firstSeen (i: number): number { return this.c.firstSeen[i] as number }
  /** Unix seconds row i disappears; null when the scanner does not know. */
  expire (i: number): number | null { const v = this.c.expire[i] as number; return Number.isNaN(v) ? null : v }

  /**
   * Calls `visit` with every row first seen at or after `since` (seconds) inside one of `boxes`: a binary
   * search finds the rows of the boxes' latitude band, then each is tested against the boxes' envelope
   * before the boxes themselves.
   */
  forEachIn (boxes: readonly BoundingBox[], since: number, visit: (i: number) => void): void {
    if (boxes.length === 0) return
    let minLat = Infinity; let maxLat = -Infinity; let minLon = Infinity; let maxLon = -Infinity
    for (const b of boxes) {
      minLat = Math.min(minLat, b.minLat); maxLat = Math.max(maxLat, b.maxLat)
      minLon = Math.min(minLon, b.minLon); maxLon = Math.max(maxLon, b.maxLon)
    }
    const { lat, lon, firstSeen } = this.c
    for (let i = this.firstAtOrAbove(minLat); i < this.size; i++) {
      const y = lat[i] as number
      if (y > maxLat) return
      const x = lon[i] as number
      if (x < minLon || x > maxLon || (firstSeen[i] as number) < since) continue
      for (const b of boxes) {
        if (y >= b.minLat && y <= b.maxLat && x >= b.minLon && x <= b.maxLon) { visit(i); break }
      }
    }
  }

  /** Row i as the matchers take it; its PvP ranks only when `withPvp` (an alarm of the pass asks for a league). */
  spawn (i: number, withPvp: boolean): Spawn {
    const c = this.c
    const expire = c.expire[i] as number
    return {
      pokemonId: c.pokemonId[i] as number,
      form: c.form[i] as number,
      atk: orNull(c.atk[i] as number),
      def: orNull(c.def[i] as number),
      sta: orNull(c.sta[i] as number),
      cp: orNull(c.cp[i] as number),
      level: orNull(c.level[i] as number),
      gender: orNull(c.gender[i] as number),
      size: orNull(c.size[i] as number),
      weight: orNull(c.weight[i] as number),
      secondsLeft: Number.isNaN(expire) ? null : expire - (c.firstSeen[i] as number),
      pvp: withPvp ? this.pvpOf(i) : null
    }
  }

  private pvpOf (i: number): Spawn['pvp'] {
    const c = this.c
    const start = c.pvpStart[i] as number
    const end = c.pvpEnd[i] as number
    if (start === end) return null
    const out: NonNullable<Spawn['pvp']> = {}
    for (let k = start; k < end; k++) {
      const league = LEAGUES[c.rankLeague[k] as number] as typeof LEAGUES[number]
      const list = out[league] ?? (out[league] = [])
      list.push({ rank: c.rank[k] as number, cp: c.rankCp[k] as number, cap: c.rankCap[k] as number, capped: c.rankCapped[k] === 1 })
    }
    return out
  }

  /** The first row whose latitude is at least `lat`. */
  private firstAtOrAbove (lat: number): number {
    let low = 0
    let high = this.size
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.c.lat[mid] as number) < lat) low = mid + 1
      else high = mid
    }
    return low
  }
}
