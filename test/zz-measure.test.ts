import tap from 'tap'
import { build, bearer, seedHuman } from './helper.js'
import { startFaultPeer } from './fakes/fault-peer.js'
tap.test('measure', async (t) => {
  const peer = await startFaultPeer({ mode: 'hanging' })
  t.teardown(() => peer.close())
  const s = await build(t, { env: { PORACLE_API_ADDRESS: peer.url, ENGINE_TIMEOUT_MS: '1000' } })
  await seedHuman(s, { id: '1', name: 'a' } as any)
  for (const url of ['/api/monsters', '/api/profiles', '/api/dashboard', '/api/monsters']) {
    const t0 = performance.now()
    const res = await s.app.inject({ url, headers: bearer(s.app, { userId: '1' }) })
    console.log(url, res.statusCode, Math.round(performance.now() - t0), res.body.slice(0, 100), peer.hits)
  }
})
