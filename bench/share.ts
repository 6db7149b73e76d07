/**
 * Copying a shared set of 200 alarms (seven types) into a member's profile: the engine calls it makes
 * and its time, against the plain batch create of the same 200 alarms (POST /api/<type>/batch, one
 * request per type) into another fresh member, each in the same run, five rounds, medians.
 *
 *   npm run bench:share            (MariaDB on 127.0.0.1:3306, root without password)
 */
import { benchDatabases, startBenchSite } from './setup.js'
import { median, spread } from './stats.js'

const SECRET = 'bench-engine-secret'
const SHARER = '500000000000000001'
const ROUNDS = 5
const DATABASES = benchDatabases('share')

/** 200 alarms in seven types, each row set apart by its type's key field. */
const SET: Array<{ type: string, path: string, count: number, row: (i: number) => Record<string, unknown> }> = [
  { type: 'pokemon', path: 'monsters', count: 30, row: (i) => ({ pokemon_id: i + 1, min_iv: 90 }) },
  { type: 'raid', path: 'raids', count: 30, row: (i) => ({ pokemon_id: i + 1 }) },
  { type: 'egg', path: 'eggs', count: 25, row: (i) => ({ level: i + 1 }) },
  { type: 'quest', path: 'quests', count: 30, row: (i) => ({ reward_type: 7, reward: i + 1 }) },
  { type: 'nest', path: 'nests', count: 30, row: (i) => ({ pokemon_id: i + 1 }) },
  { type: 'gym', path: 'gyms', count: 25, row: (i) => ({ gym_id: `gym-${i}` }) },
  { type: 'maxbattle', path: 'maxbattles', count: 30, row: (i) => ({ pokemon_id: i + 1 }) }
]

async function main (): Promise<void> {
  const { insertAlarm, insertHuman } = await import('../test/fakes/engine-db.js')
  const site = await startBenchSite(DATABASES, SECRET)
  const { app, fake, pool } = site
  const bearer = (userId: string) => ({ authorization: `Bearer ${app.auth.mint({ userId, username: userId, type: 'discord:user', isAdmin: false, enabled: true, profileNo: 1 }, 60).token}` })
  try {
    await insertHuman(pool, { id: SHARER, name: 'Sharer' })
    for (const { type, count, row } of SET) {
      for (let i = 0; i < count; i++) await insertAlarm(pool, type as 'pokemon', { id: SHARER, ...row(i) })
    }
    const shared = await app.inject({ method: 'POST', url: '/api/shared-sets', headers: bearer(SHARER), payload: { profileNo: 1 } })
    if (shared.statusCode !== 201) throw new Error(`share answered ${shared.statusCode}: ${shared.body}`)
    const { token, alarms } = shared.json() as { token: string, alarms: number }

    const copyMs: number[] = []
    const batchMs: number[] = []
    const copyCalls: number[] = []
    const batchCalls: number[] = []
    const copyWrites: number[] = []
    const batchWrites: number[] = []
    /** The engine's alarm writes among the requests: POST /api/tracking/<type>/<member>. */
    const writes = () => fake.requests.filter((r) => r.method === 'POST' && /^\/api\/tracking\/[a-z]+\/\d+$/.test(r.path)).length
    for (let round = 0; round < ROUNDS; round++) {
      const viaCopy = `6000000000000000${String(round).padStart(2, '0')}`
      const viaBatch = `7000000000000000${String(round).padStart(2, '0')}`
      await insertHuman(pool, { id: viaCopy })
      await insertHuman(pool, { id: viaBatch })

      fake.requests.length = 0
      let started = performance.now()
      const copied = await app.inject({ method: 'POST', url: `/api/shared-sets/${token}/copy`, headers: bearer(viaCopy), payload: { profileNo: 1 } })
      copyMs.push(performance.now() - started)
      copyCalls.push(fake.requests.length)
      copyWrites.push(writes())
      const added = (copied.json() as { added?: unknown[] }).added?.length
      if (copied.statusCode !== 200 || added !== alarms) throw new Error(`copy answered ${copied.statusCode}, ${String(added)} added: ${copied.body.slice(0, 300)}`)

      fake.requests.length = 0
      started = performance.now()
      for (const { path, count, row } of SET) {
        const res = await app.inject({ method: 'POST', url: `/api/${path}/batch`, headers: bearer(viaBatch), payload: { alarms: Array.from({ length: count }, (_, i) => row(i)) } })
        if (res.statusCode !== 200 || (res.json() as { created: number }).created !== count) throw new Error(`batch ${path} answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
      }
      batchMs.push(performance.now() - started)
      batchCalls.push(fake.requests.length)
      batchWrites.push(writes())
    }
    const calls = (values: number[], written: number[]) => `${median(values)} engine requests, ${median(written)} of them writes`
    console.log(`\nCopying a shared set of ${alarms} alarms in ${SET.length} types (${ROUNDS} rounds, fresh member each)`)
    console.log(`copy (POST /api/shared-sets/:token/copy)   ${median(copyMs).toFixed(0)} ms (${spread(copyMs)})  ${calls(copyCalls, copyWrites)}`)
    console.log(`plain batch create (${SET.length} × POST /batch)     ${median(batchMs).toFixed(0)} ms (${spread(batchMs)})  ${calls(batchCalls, batchWrites)}`)
    console.log(`ratio (copy / batch)                        ${(median(copyMs) / median(batchMs)).toFixed(2)}`)
  } finally {
    await site.close()
  }
}

await main()
