import t from 'tap'
import { bearer, build } from './helper.js'

const testApp = await build(t)
const { app } = testApp

const call = (method: 'GET' | 'PUT', userId: string | null, payload?: unknown) => app.inject({
  method,
  url: '/api/alarm-defaults',
  headers: { ...(userId !== null ? bearer(app, { userId }) : {}), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
  ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {})
})

t.test('a member keeps defaults for new alarms on the server, apart from everyone else', async (t) => {
  await app.db.pool.query('DELETE FROM alarm_defaults')
  t.same((await call('GET', 'u1')).json(), { distance: null, clean: null, template: null }, 'none at first')
  const put = await call('PUT', 'u1', { distance: 750, clean: 3, template: 'compact' })
  t.equal(put.statusCode, 200)
  t.same(put.json(), { distance: 750, clean: 3, template: 'compact' })
  t.same((await call('GET', 'u1')).json(), { distance: 750, clean: 3, template: 'compact' }, 'read back (another device)')
  t.same((await call('GET', 'u2')).json(), { distance: null, clean: null, template: null }, 'another member has none')

  t.same((await call('PUT', 'u1', { distance: 1000, clean: null, template: null })).json(), { distance: 1000, clean: null, template: null }, 'replaced')
  t.same((await call('PUT', 'u1', { distance: null, clean: null, template: null })).json(), { distance: null, clean: null, template: null })
  const [rows] = [await app.db.pool.query('SELECT * FROM alarm_defaults') as unknown[]]
  t.equal(rows.length, 0, 'clearing all removes the row')
})

t.test('bad defaults are a 400 and change nothing; no token is a 401', async (t) => {
  await app.db.pool.query('DELETE FROM alarm_defaults')
  await call('PUT', 'u3', { distance: 10, clean: 1, template: '1' })
  for (const body of [
    { distance: -1, clean: null, template: null },
    { distance: 40_000_001, clean: null, template: null },
    { distance: 1, clean: 8, template: null },
    { distance: 1, clean: 1, template: '' },
    { distance: 1, clean: 1, template: 'x'.repeat(257) },
    { distance: 1, clean: 1, template: 'a\u202Eb' },
    { distance: 1, clean: 1 },
    { distance: 1, clean: 1, template: null, extra: 1 },
    { distance: '1', clean: 1, template: null }
  ]) {
    const res = await call('PUT', 'u3', body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
  }
  t.same((await call('GET', 'u3')).json(), { distance: 10, clean: 1, template: '1' })
  t.equal((await call('GET', null)).statusCode, 401)
  t.equal((await call('PUT', null, { distance: 1, clean: null, template: null })).statusCode, 401)
})
