import type { Pool } from 'mariadb'
import type { Clock } from '../../base/clock.js'
import type { TtlCache } from '../../../lib/ttl-cache.js'
import { uniformIvShare } from './iv-share.js'
import { numberOf, type Fence, type Target } from './recent-counts.js'

/**
 * The typical day of a pokemon alarm, from Golbat's daily counts per fence (`pokemon_stats` and its IV and
 * hundo tables): the week before today summed per fence and species once, shared by every member, then
 * each alarm's figure a few look-ups.
 */

/**
 * A fence's week of daily statistics is shared by every member this long: its days are over, so only a
 * late write of yesterday's counts can change it (and a new day starts a new week at once: it is keyed by
 * its first day).
 */
const WEEK_MS = 60 * 60_000
/** Days of daily statistics a "typical day" averages (yesterday and the six before). */
const STATS_DAYS = 7

export type PerDayBasis = 'species-stats' | 'hundo-stats' | 'iv-stats' | 'uniform' | 'today'

export interface TypicalDayDeps {
  query: (pool: Pool, sql: string, params: unknown[]) => Promise<unknown[][]>
  clock: Clock
  shared: TtlCache<string, unknown>
  fenceWeeks: TtlCache<string, FenceWeek>
}

/** Summed daily counts of a group of spawns: all of them, those with IV statistics, the hundos. */
type Sums = [all: number, iv: number, hundo: number]
const add = (into: Sums, from: Sums) => { into[0] += from[0]; into[1] += from[1]; into[2] += from[2] }

/**
 * One fence's week: its days with statistics, the sums per fence, per species and per species and form,
 * and whether the scanner keeps IV counts there.
 */
export interface FenceWeek { days: number, total: Sums, species: Map<number, { total: Sums, forms: Map<number, Sums> }>, ivRows: boolean }

export interface Daily { fences: Map<string, FenceWeek>, ivKnown: boolean }

export function createTypicalDay ({ query, clock, shared, fenceWeeks }: TypicalDayDeps) {
  const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

  /** The first and last day a typical day averages: yesterday and the six days before. */
  function statsDays (): { from: string, to: string } {
    const today = Date.parse(isoDay(clock.now()))
    return { from: isoDay(today - STATS_DAYS * 86_400_000), to: isoDay(today - 86_400_000) }
  }

  /**
   * The (date, area, fence) keys of the last seven days, read when a fence's week is not kept, at most
   * once in `WEEK_MS`. The hint asks for a loose scan of the primary key (one step per key); where the
   * server still reads the index range, that is one read of the week's keys (0.45 s on the bench), shared
   * by every member.
   */
  async function statsKeys (pool: Pool): Promise<Array<[string, string, string]>> {
    const { from, to } = statsDays()
    return await shared.getOrLoad(`stats-keys:${from}`, async () => {
      const rows = await query(pool, 'SELECT date, area, fence FROM pokemon_stats FORCE INDEX FOR GROUP BY (PRIMARY) WHERE date BETWEEN ? AND ? GROUP BY date, area, fence', [from, to])
      return { value: rows.map((r) => [String(r[0]).slice(0, 10), String(r[1]), String(r[2]).toLowerCase()] as [string, string, string]), ttlMs: WEEK_MS }
    }) as Array<[string, string, string]>
  }

  /**
   * The week's counts of the named fences, every species, summed per fence and species so that each
   * alarm's figure is a few look-ups (not a walk over every species of every fence per alarm). A fence's
   * week is shared by every member for `WEEK_MS` (the days it sums are over); the fences not kept yet
   * are read together, with one grouped query per statistics table.
   */
  async function dailyCounts (pool: Pool, fenceNames: Set<string>): Promise<Daily> {
    const { from } = statsDays()
    const daily: Daily = { fences: new Map(), ivKnown: false }
    const missing = new Set<string>()
    for (const name of fenceNames) {
      const kept = fenceWeeks.get(`${from}\n${name}`)
      if (kept === undefined) missing.add(name)
      else daily.fences.set(name, kept)
    }
    if (missing.size > 0) {
      const keys = (await statsKeys(pool)).filter(([, , fence]) => missing.has(fence))
      for (const [name, week] of await readWeeks(pool, keys, missing)) {
        fenceWeeks.set(`${from}\n${name}`, week, WEEK_MS)
        daily.fences.set(name, week)
      }
    }
    daily.ivKnown = [...daily.fences.values()].some((week) => week.ivRows)
    return daily
  }

  async function readWeeks (pool: Pool, keys: Array<[string, string, string]>, fenceNames: Set<string>): Promise<Map<string, FenceWeek>> {
    const weeks = new Map<string, FenceWeek>()
    const daysOf = new Map<string, Set<string>>()
    for (const [date, , fence] of keys) daysOf.set(fence, (daysOf.get(fence) ?? new Set()).add(date))
    for (const name of fenceNames) weeks.set(name, { days: daysOf.get(name)?.size ?? 0, total: [0, 0, 0], species: new Map(), ivRows: false })
    if (keys.length === 0) return weeks
    const dates = [...new Set(keys.map(([d]) => d))]
    const areas = [...new Set(keys.map(([, a]) => a))]
    const fences = [...new Set(keys.map(([, , f]) => f))]
    const list = (values: unknown[]) => values.map(() => '?').join(',')
    const sql = `date IN (${list(dates)}) AND area IN (${list(areas)}) AND fence IN (${list(fences)})`
    const params: unknown[] = [...dates, ...areas, ...fences]
    const read = async (table: string) => await query(pool, `SELECT fence, pokemon_id, form_id, SUM(count) FROM ${table} WHERE ${sql} GROUP BY fence, pokemon_id, form_id`, params)
    const [all, iv, hundo] = await Promise.all([read('pokemon_stats'), read('pokemon_iv_stats'), read('pokemon_hundo_stats')])
    const keyOf = (r: unknown[]) => `${String(r[0]).toLowerCase()}:${Number(r[1])}:${Number(r[2])}`
    const ivCounts = new Map(iv.map((r) => [keyOf(r), Number(r[3])]))
    const hundoCounts = new Map(hundo.map((r) => [keyOf(r), Number(r[3])]))
    for (const r of iv) { const week = weeks.get(String(r[0]).toLowerCase()); if (week !== undefined) week.ivRows = true }
    // Only the species and forms the species table counts: an IV or hundo row without one is left out.
    for (const r of all) {
      const week = weeks.get(String(r[0]).toLowerCase())
      if (week === undefined) continue
      const key = keyOf(r)
      const sums: Sums = [Number(r[3]), ivCounts.get(key) ?? 0, hundoCounts.get(key) ?? 0]
      const pokemonId = Number(r[1])
      let one = week.species.get(pokemonId)
      if (one === undefined) { one = { total: [0, 0, 0], forms: new Map() }; week.species.set(pokemonId, one) }
      const form = Number(r[2])
      const before = one.forms.get(form)
      if (before === undefined) one.forms.set(form, [...sums])
      else add(before, sums)
      add(one.total, sums)
      add(week.total, sums)
    }
    return weeks
  }

  function perDayOf (t: Target, fences: Fence[], daily: Daily): { perDay: number | null, basis: PerDayBasis | null } {
    if (t.fences === null || t.fences.length === 0) return { perDay: null, basis: null }
    const a = t.alarm
    const id = numberOf(a.pokemon_id)
    const form = numberOf(a.form)
    const minIv = numberOf(a.min_iv, -1)
    const maxIv = numberOf(a.max_iv, 100)
    const noIvFilter = minIv <= -1 && maxIv >= 100
    const hundo = minIv > 97.8 && maxIv >= 100
    const { ivKnown } = daily
    const basis: PerDayBasis = noIvFilter ? 'species-stats' : !ivKnown ? 'uniform' : hundo ? 'hundo-stats' : 'iv-stats'
    // Every figure below is linear in the counts, so it is taken of the sums rather than summed per species.
    const share = uniformIvShare(Math.max(0, minIv), maxIv)
    const figure = ([all, iv, hundos]: Sums): number => noIvFilter
      ? all
      : !ivKnown
          ? all * (minIv <= -1 ? 1 : uniformIvShare(minIv, maxIv))
          : hundo ? hundos : (minIv <= -1 ? all - iv : 0) + iv * share
    const matching = (week: FenceWeek): Sums => {
      const sums: Sums = [0, 0, 0]
      if (id !== 0) {
        const one = week.species.get(id)
        if (one !== undefined) add(sums, form === 0 ? one.total : one.forms.get(form) ?? [0, 0, 0])
      } else if (form === 0) {
        add(sums, week.total)
      } else {
        for (const one of week.species.values()) { const f = one.forms.get(form); if (f !== undefined) add(sums, f) }
      }
      return sums
    }
    let total = 0
    let anyDays = false
    for (const i of t.fences) {
      const week = daily.fences.get((fences[i] as Fence).name)
      if (week === undefined || week.days === 0) continue
      anyDays = true
      total += figure(matching(week)) / week.days
    }
    return anyDays ? { perDay: total, basis } : { perDay: null, basis: null }
  }

  return { dailyCounts, perDayOf }
}
