import t from 'tap'
import { build, bearer, type Test } from './helper.js'
import { startGolbatFake } from './fakes/golbat.js'

const USER = '121212121212121212'

async function setup (t: Test, env?: Record<string, string>) {
  const golbat = await startGolbatFake({ available: [25, 1, 150, 25] })
  t.teardown(() => golbat.close())
  const s = await build(t, { env: env ?? { GOLBAT_API_ADDRESS: golbat.url, GOLBAT_API_SECRET: golbat.secret, GOLBAT_TIMEOUT_MS: '500' } })
  const get = async () => (await s.app.inject({ method: 'GET', url: '/api/pokemon-availability', headers: bearer(s.app, { userId: USER }) })).json()
  return Object.assign(s, { golbat, get })
}

t.test('enabled only with both the address and the secret', async (t) => {
  const golbat = await startGolbatFake()
  t.teardown(() => golbat.close())
  for (const env of [{}, { GOLBAT_API_ADDRESS: golbat.url }, { GOLBAT_API_SECRET: 'x' }]) {
    const s = await setup(t, env)
    t.same(await s.get(), { enabled: false, available: [] }, JSON.stringify(Object.keys(env)))
  }
  t.equal(golbat.calls, 0, 'Golbat never asked')
})

t.test('every answer shape Golbat gives, cached five minutes', async (t) => {
  const s = await setup(t)
  t.same(await s.get(), { enabled: true, available: [1, 25, 150] }, 'objects with ids, de-duplicated and sorted')
  s.golbat.available = [7]
  s.golbat.shape = 'flat'
  t.same((await s.get()).available, [1, 25, 150], 'cached')
  t.equal(s.golbat.calls, 1)
  s.clock.advance(5 * 60_000 + 1)
  t.same((await s.get()).available, [7], 'flat ids after the cache time')
  s.golbat.shape = 'wrapped'
  s.golbat.available = [9, 8]
  s.clock.advance(5 * 60_000 + 1)
  t.same((await s.get()).available, [8, 9], '{ available: [...] }')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/pokemon-availability' })).statusCode, 401)
})

t.test('Golbat down: the last known list, else none with a warning', async (t) => {
  const s = await setup(t)
  s.golbat.fail('down')
  t.same(await s.get(), { enabled: true, available: [] }, 'nothing known yet')
  t.ok(s.logs.some((l) => /pokemon availability unavailable/.test(String(l.msg))), 'warning logged')
  s.golbat.fail(null)
  s.clock.advance(5 * 60_000 + 1)
  t.same((await s.get()).available, [1, 25, 150])
  for (const mode of ['down', 'garbage'] as const) {
    s.golbat.fail(mode)
    s.clock.advance(5 * 60_000 + 1)
    t.same((await s.get()).available, [1, 25, 150], `${mode}: last known list`)
  }
  t.notMatch(s.rawLogs(), s.golbat.secret, 'the secret is never logged')
})
