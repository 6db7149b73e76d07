import t from 'tap'
import { bearer, build, seedHuman } from './helper.js'
import { ALARM_TABLES, insertAlarm } from './fakes/engine-db.js'
import { alarmSchema } from '../schemas/alarms.js'
import { ALARM_KINDS } from '../schemas/alarm-types.js'

/**
 * The shape of a stored alarm on the wire: every field the alarm-type table documents, the row's
 * bookkeeping (uid, id, profile_no, description), and columns the table does not name passed through
 * as the engine sent them (docs/decisions.md "Alarm answers keep columns the service does not know").
 */

const USER = '200000000000000101'
const ng = await build(t, { engineMode: 'ng' })
await seedHuman(ng, { id: USER })
const headers = bearer(ng.app, { userId: USER })
const get = async (url: string) => ng.app.inject({ method: 'GET', url, headers })

t.test('each type answers exactly its documented fields for the engine\'s current columns', async (t) => {
  for (const kind of ALARM_KINDS) {
    const uid = await insertAlarm(ng.app.engineDb.pool, kind.type, { id: USER })
    const list = await get(`/api${kind.path}`)
    t.equal(list.statusCode, 200, kind.type)
    const [row] = list.json() as Array<Record<string, unknown>>
    t.same(Object.keys(row ?? {}).sort(), Object.keys(alarmSchema(kind.type).properties).sort(), `${kind.type}: every documented field, nothing else`)
    t.match(row, { uid, id: USER, profile_no: 1, description: String }, `${kind.type}: bookkeeping`)
    t.same((await get(`/api${kind.path}/${uid}`)).json(), row, `${kind.type}: GET one answers the same row`)
  }
})

t.test('a column the table does not name is shown as the engine sent it', async (t) => {
  // PoracleNG's later migrations add `costume` to the pokemon table (alarm-engine.md 1.12, 2.3).
  await ng.app.engineDb.pool.query('ALTER TABLE monsters ADD COLUMN IF NOT EXISTS costume int NOT NULL DEFAULT 0')
  t.teardown(() => ng.app.engineDb.pool.query('ALTER TABLE monsters DROP COLUMN IF EXISTS costume'))
  await ng.app.engineDb.pool.query(`DELETE FROM \`${ALARM_TABLES.pokemon}\``)
  const first = await insertAlarm(ng.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 25, costume: 7 })
  const second = await insertAlarm(ng.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 1, override_areas: '["town"]' })

  const list = (await get('/api/monsters')).json() as Array<Record<string, unknown>>
  t.same(list.map((r) => [r.uid, r.pokemon_id, r.costume]), [[first, 25, 7], [second, 1, 0]], 'in uid order, costume included')
  t.same(list[1]?.override_areas, ['town'], 'list columns stored as JSON text are shown as lists')
  t.same(Object.keys(list[0] ?? {}).sort(), [...Object.keys(alarmSchema('pokemon').properties), 'costume'].sort(), 'nothing else is added')
  t.match((await get(`/api/monsters/${first}`)).json(), { uid: first, costume: 7 })
})
