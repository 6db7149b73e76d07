import t from 'tap'
import { getTableColumns, getTableName } from 'drizzle-orm'
import type { MySqlTable } from 'drizzle-orm/mysql-core'
import { alarmTables } from '../db/schema/engine.js'
import { ALARM_KINDS, INT_MAX, INT_MIN, UINT_MAX, type AlarmKind, type FieldSpec } from '../schemas/alarm-types.js'
import { bearer, build, seedHuman, type TestApp } from './helper.js'

/**
 * Input the engine cannot store: every numeric alarm field is bounded by what the engine's column can hold, and a
 * value outside the bounds (or a number JSON parsing turns into Infinity) is a 400 that changes nothing.
 */

const USER = '100000000000000001'
type Row = Record<string, unknown>

/** What each engine column type can hold (db/schema/engine.ts). */
const COLUMN_RANGE: Record<string, [number, number]> = {
  int: [INT_MIN, INT_MAX],
  'int unsigned': [0, UINT_MAX],
  tinyint: [-128, 127]
}

/** The numeric fields of a type with the range the API accepts. */
function numericFields (kind: AlarmKind): Array<{ name: string, min: number, max: number }> {
  return Object.entries(kind.fields).flatMap(([name, spec]: [string, FieldSpec]) => {
    switch (spec.kind) {
      case 'integer': case 'template': return [{ name, min: spec.min, max: spec.max }]
      case 'boolean': return [{ name, min: 0, max: 1 }]
      case 'enum': {
        const numbers = spec.values.filter((v): v is number => typeof v === 'number')
        return numbers.length > 0 ? [{ name, min: Math.min(...numbers), max: Math.max(...numbers) }] : []
      }
      default: return []
    }
  })
}

/** A create body with a valid value for each required field, and a level (a raid by level needs one). */
function minimalBody (kind: AlarmKind): Row {
  const level = 'level' in kind.fields ? { level: 1 } : {}
  return {
    ...level,
    ...Object.fromEntries(kind.requiredOnCreate.map((name) => {
      const spec = kind.fields[name] as FieldSpec
      switch (spec.kind) {
        case 'integer': return [name, Math.max(spec.min, 1)]
        case 'enum': return [name, spec.values[0]]
        default: return [name, 'fire']
      }
    }))
  }
}

t.test('every numeric field fits its engine column', async (t) => {
  for (const kind of ALARM_KINDS) {
    const table = (alarmTables as Record<string, MySqlTable>)[kind.engineName] as MySqlTable
    const columns = new Map(Object.values(getTableColumns(table)).map((c) => [c.name, c.getSQLType()]))
    for (const field of numericFields(kind)) {
      const sqlType = columns.get(field.name)
      t.ok(sqlType !== undefined, `${kind.type}.${field.name} is a column of ${getTableName(table)}`)
      if (field.name === 'template') continue
      const range = COLUMN_RANGE[sqlType as string]
      t.ok(range !== undefined && field.min >= range[0] && field.max <= range[1], `${kind.type}.${field.name} ${field.min}..${field.max} fits ${String(sqlType)}`)
    }
  }
})

t.test('max+1, min-1 and non-finite numbers: 400 on create and update, nothing written', async (t) => {
  const testApp: TestApp = await build(t)
  await seedHuman(testApp, { id: USER, name: 'user' })
  const headers = { ...bearer(testApp.app, { userId: USER }), 'content-type': 'application/json' }
  const send = (method: 'POST' | 'PUT', url: string, payload: string) => testApp.app.inject({ method, url, headers, payload })

  const uids = new Map<string, number>()
  for (const kind of ALARM_KINDS) {
    const res = await send('POST', `/api${kind.path}`, JSON.stringify(minimalBody(kind)))
    t.equal(res.statusCode, 201, `a valid ${kind.type} is created`)
    uids.set(kind.type, res.json().uid)
  }

  const snapshot = async () => {
    const tables: Row = {}
    for (const kind of ALARM_KINDS) {
      const name = getTableName((alarmTables as Record<string, MySqlTable>)[kind.engineName] as MySqlTable)
      tables[name] = await testApp.app.engineDb.pool.query(`SELECT * FROM \`${name}\` ORDER BY uid`)
    }
    return tables
  }
  const before = await snapshot()
  const writesBefore = testApp.engine.requests.filter((r) => r.method !== 'GET').length

  let walked = 0
  for (const kind of ALARM_KINDS) {
    const base = minimalBody(kind)
    for (const field of numericFields(kind)) {
      // Raw JSON, so 1e400 reaches the parser as written (it parses to Infinity).
      for (const value of [String(field.max + 1), String(field.min - 1), '1e400', '-1e400']) {
        const created = await send('POST', `/api${kind.path}`, JSON.stringify(base).replace(/}$/, `${Object.keys(base).length > 0 ? ',' : ''}"${field.name}":${value}}`))
        t.equal(created.statusCode, 400, `create ${kind.type}.${field.name} = ${value}`)
        const updated = await send('PUT', `/api${kind.path}/${String(uids.get(kind.type))}`, `{"${field.name}":${value}}`)
        t.equal(updated.statusCode, 400, `update ${kind.type}.${field.name} = ${value}`)
        walked++
      }
    }
  }
  t.ok(walked > 300, `${walked} out-of-range values tried`)
  t.equal(testApp.engine.requests.filter((r) => r.method !== 'GET').length, writesBefore, 'no write reached the engine')
  t.same(await snapshot(), before, 'no alarm changed')
})
