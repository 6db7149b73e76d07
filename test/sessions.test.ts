import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ADMIN, USER, OTHER, REDIS, withCast, auth, tokenOf, me, eventually } from './fixtures/sessions-cast.js'
import { bearer, buildInstance } from './helper.js'
import { addressNetwork, deviceLabel } from '../lib/devices.js'

/*
 * Sessions people can see and end, ended sign-ins refused on every request (and on a second instance
 * through Redis), impersonation bounds, and the admin audit log.
 */

const PHONE_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36'

t.test('logout ends a sign-in without a refresh family on the server, on every instance', async (t) => {
  const a = await withCast(t, REDIS)
  const b = await buildInstance(t, a)
  const token = tokenOf(bearer(a.app, { userId: USER, sid: 't.phone' }))
  const spare = tokenOf(bearer(a.app, { userId: USER, sid: 't.laptop' }))
  t.equal((await me(a.app, token)).statusCode, 200)
  t.equal((await me(b, token)).statusCode, 200, 'B has cached the sign-in as live')

  const out = await a.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(token) })
  t.equal(out.statusCode, 200)
  t.equal((await me(a.app, token)).statusCode, 401, 'refused at once where it signed out')
  t.ok(await eventually(async () => (await me(b, token)).statusCode === 401), 'and on the other instance')
  t.same((await me(b, token)).json(), { error: 'This sign-in has ended. Please sign in again.' })
  t.equal((await me(a.app, spare)).statusCode, 200, 'the user\'s other sign-in goes on')
})

t.test('my devices: this device, ending one, ending all the others', async (t) => {
  const s = await withCast(t)
  const phone = tokenOf(bearer(s.app, { userId: USER, sid: 't.phone' }))
  const laptop = tokenOf(bearer(s.app, { userId: USER, sid: 't.laptop' }))
  const otto = tokenOf(bearer(s.app, { userId: OTHER, sid: 't.otto' }))

  const list = await s.app.inject({ method: 'GET', url: '/api/auth/sessions', headers: { ...auth(phone), 'user-agent': PHONE_UA } })
  t.equal(list.statusCode, 200)
  t.equal(list.headers['cache-control'], 'no-store')
  t.match(list.json(), { sessions: [{ id: 't.phone', kind: 'token', device: 'Chrome on Android', network: null, current: true }] })
  t.equal(list.json().sessions.length, 1, 'no refresh families yet')
  t.equal(list.json().sessions[0].expiresAt, new Date((Math.floor(s.clock.now() / 1000) + 3600) * 1000).toISOString(), 'the token\'s remaining lifetime')

  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/auth/sessions/t.otto', headers: auth(phone) })).statusCode, 404, 'another user\'s sign-in cannot be named')
  t.equal((await me(s.app, otto)).statusCode, 200)
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/auth/sessions/not%20an%20id', headers: auth(phone) })).statusCode, 400)
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/auth/sessions', headers: auth(phone) })).statusCode, 400, 'ending the others says so explicitly')

  const others = await s.app.inject({ method: 'DELETE', url: '/api/auth/sessions?others=true', headers: auth(phone) })
  t.equal(others.statusCode, 200)
  t.equal((await me(s.app, laptop)).statusCode, 401, 'the other sign-in ended')
  t.equal((await me(s.app, phone)).statusCode, 200, 'this one goes on')
  t.equal((await me(s.app, otto)).statusCode, 200, 'another user is untouched')
  s.clock.advance(1000)
  t.equal((await me(s.app, tokenOf(bearer(s.app, { userId: USER, sid: 't.later' })))).statusCode, 200, 'a sign-in after it works')

  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/auth/sessions/t.phone', headers: auth(phone) })).statusCode, 200)
  t.equal((await me(s.app, phone)).statusCode, 401, 'ending this device signs it out')

  const acting = tokenOf(bearer(s.app, { userId: USER, sid: 't.acting', impersonatedBy: ADMIN }))
  t.equal((await s.app.inject({ method: 'GET', url: '/api/auth/sessions', headers: auth(acting) })).statusCode, 403, 'an impersonation sees no sessions')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/auth/sessions' })).statusCode, 401)
})

t.test('the network is shown only when the operator switches it on', async (t) => {
  const s = await withCast(t)
  const shown = await buildInstance(t, s, { SESSIONS_SHOW_NETWORK: true })
  const token = tokenOf(bearer(s.app, { userId: USER, sid: 't.net' }))
  const ask = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/api/auth/sessions', headers: auth(token), remoteAddress: '203.0.113.77' })
  t.equal((await ask(s.app)).json().sessions[0].network, null)
  t.equal((await ask(shown)).json().sessions[0].network, '203.0.113.0/24')
  t.equal(addressNetwork('2001:db8:1234:5678::1'), '2001:db8:1234::/48')
  t.equal(addressNetwork('::ffff:198.51.100.9'), '198.51.100.0/24')
  t.equal(addressNetwork('garbage'), null)
  t.equal(deviceLabel('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'), 'Safari on iOS')
  t.equal(deviceLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0'), 'Edge on Windows')
  t.equal(deviceLabel(undefined), null)
})
