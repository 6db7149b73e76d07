/**
 * The CPU an alarm list costs the service in-process, for 50 pokemon alarms as the engine sends them:
 * serializing the answer with the open response schema the routes use (the baseline), with the same
 * schema closed (what dropping unknown columns would save; not done, docs/decisions.md) and with plain
 * JSON.stringify (no schema at all), each including Buffer.byteLength, which Fastify calls for
 * Content-Length and which flattens the string a serializer built piece by piece. For scale, the other
 * steps on the list's path: JSON.parse of the engine's answer and present() + sort.
 * Rounds alternate the candidates; each figure is the median round.
 *
 *   npx tsx bench/serialize.ts            (no database needed)
 */
import fastJson from 'fast-json-stringify'
import { Type } from '@sinclair/typebox'
import { alarmSchema } from '../schemas/alarms.js'
import { present } from '../plugins/domain/alarm-writer.js'
import { ALARM_DEFAULTS } from '../test/fakes/engine-db.js'
import { median } from './stats.js'

const ALARMS = 50
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9)
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 4000)

/** The engine's answer: every column of `monsters` plus `description`, as bench/alarms.ts seeds them. */
const answer = JSON.stringify({
  status: 'ok',
  pokemon: Array.from({ length: ALARMS }, (_, i) => ({
    id: '123456789012345678',
    ping: '',
    ...ALARM_DEFAULTS.pokemon,
    pokemon_id: i + 1,
    min_iv: i % 100,
    distance: i * 10,
    template: '1',
    uid: 1000 + ALARMS - i,
    profile_no: 1,
    override_location_label: null,
    override_areas: null,
    description: `Pokemon ${i + 1} iv: ${i % 100}%-100% cp: 0-9000 level: 0-55 stats: 0/0/0 - 15/15/15 distance: ${i * 10}m`
  }))
})
const rows = () => (JSON.parse(answer) as { pokemon: Array<Record<string, unknown> & { uid: number, id: string, profile_no: number }> }).pokemon
const shown = rows().map(present).sort((a, b) => a.uid - b.uid)
const withUnknown = shown.map((row) => ({ ...row, costume: 3 }))

type Serialize = (value: unknown) => string
const schema = alarmSchema('pokemon')
const open = fastJson(Type.Array(schema)) as Serialize
const closed = fastJson(Type.Array({ ...schema, additionalProperties: false })) as Serialize
if (!open(withUnknown).includes('"costume":3') || closed(withUnknown).includes('costume')) throw new Error('the schemas are not open and closed')
const parsed = rows()

const candidates: Record<string, () => unknown> = {
  'open schema (today)': () => Buffer.byteLength(open(shown)),
  'closed schema (drops columns)': () => Buffer.byteLength(closed(shown)),
  'JSON.stringify (no schema)': () => Buffer.byteLength(JSON.stringify(shown)),
  'JSON.parse of the answer': () => JSON.parse(answer),
  // present() copies each row, so the same parsed rows serve every iteration.
  'present() + sort': () => parsed.map(present).sort((a, b) => a.uid - b.uid)
}

const micros: Record<string, number[]> = Object.fromEntries(Object.keys(candidates).map((k) => [k, []]))
const time = (fn: () => unknown) => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < ITERATIONS; i++) fn()
  return Number(process.hrtime.bigint() - start) / ITERATIONS / 1000
}
for (const fn of Object.values(candidates)) time(fn)
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(candidates)) micros[name]?.push(time(fn))
}

const baseline = median(micros['open schema (today)'] ?? [])
console.log(`\n${ALARMS} pokemon alarms (${open(shown).length} bytes), median of ${ROUNDS} rounds of ${ITERATIONS}`)
for (const name of Object.keys(candidates)) {
  const us = median(micros[name] ?? [])
  console.log(`${name.padEnd(32)} ${us.toFixed(1).padStart(6)} µs   ratio to the open schema ${(us / baseline).toFixed(2)}`)
}
