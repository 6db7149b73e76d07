import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { bearer, build, buildInstance, seedHuman } from '../helper.js'
import { startPushService } from '../fakes/push-service.js'
import { startNginx } from '../nginx.js'
import { holdPort } from '../ports.js'

/**
 * Run by test/push-scale-out.test.ts. One site on two instances (one database, one Redis) behind a real
 * nginx (deploy/nginx/alarm-web.conf, round robin): the scanner's events, spread over both, are each
 * pushed once; a member's alarm written on one instance is matched on the other at once (through Redis).
 */

const certificateDir = process.env.PUSH_SERVICE_CERT_DIR as string
const MEMBER = '333333333333333333'
const FEED = 'feed-token-0123456789abcdef'
const NOW_S = Date.parse('2026-11-26T12:00:00Z') / 1000
const CENTRE: Array<[number, number]> = [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]]

let encounter = 5000
const spawn = (extra: Record<string, unknown> = {}) => ({
  type: 'pokemon',
  message: { encounter_id: String(encounter++), pokemon_id: 25, form: 0, latitude: 51.1, longitude: 7.11, disappear_time: NOW_S + 1200, individual_attack: 15, individual_defense: 15, individual_stamina: 15, cp: 900, pokemon_level: 30, gender: 1, ...extra }
})

/**
 * Settles when the other instance has heard of a change of the member (a Redis message): of their devices
 * on `push-member`, of anything else they wrote on `member-state` (the explanations' signal, which push
 * alerts hear too).
 */
const heard = (app: FastifyInstance, channel: 'push-member' | 'member-state') => new Promise<void>((resolve) => app.cacheEviction.on(channel, (userId) => { if (userId === MEMBER) resolve() }))

t.test('scanner events through nginx to two instances: each matching one is pushed exactly once', async (t) => {
  const push = await startPushService(certificateDir)
  t.teardown(() => push.close())
  const s = await build(t, { env: { SCANNER_WEBHOOK_TOKEN: FEED, PUSH_ENDPOINT_HOSTS: push.host, PUSH_RATE_MAX: '100', REDIS_URL: 'redis://127.0.0.1:6379' } })
  const a = s.app
  const b = await buildInstance(t, s)
  const ports: number[] = []
  for (const app of [a, b]) {
    await app.listen({ host: '127.0.0.1', port: 0 })
    ports.push((app.server.address() as AddressInfo).port)
  }
  const nginx = await startNginx(t, ports.map((port) => `127.0.0.1:${port}`), await holdPort())

  s.engine.set({ fences: [{ name: 'Centre', path: CENTRE }] })
  await seedHuman(s, { id: MEMBER, area: ['centre'], latitude: 51.1, longitude: 7.1 })
  const member = bearer(a, { userId: MEMBER })
  const bHeard = heard(b, 'push-member')
  t.equal((await a.inject({ method: 'POST', url: '/api/push/subscriptions', headers: member, payload: push.browser('phone').subscription })).statusCode, 201)
  t.ok((await a.inject({ method: 'POST', url: '/api/monsters', headers: member, payload: { pokemon_id: 25, min_iv: 90 } })).statusCode < 300)
  await bHeard
  await b.pushAlerts.whenKnown(MEMBER)
  const settled = async () => {
    for (const app of [a, b]) await app.pushAlerts.idle()
    for (let i = 0; i < 300 && a.pushSender.depth() + b.pushSender.depth() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }

  const matching = Array.from({ length: 6 }, () => spawn())
  const others = Array.from({ length: 4 }, () => spawn({ individual_attack: 1 }))
  const upstreams = new Set<string>()
  for (const event of [...matching, ...others]) {
    const answer = await fetch(`${nginx.url}/api/scanner-webhook/${FEED}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([event]) })
    t.equal(answer.status, 200)
    upstreams.add(answer.headers.get('x-upstream') ?? '')
  }
  t.equal(upstreams.size, 2, 'nginx spread the events over both instances')
  await settled()
  t.same(push.refused, [])
  const tags = push.received.map((r) => (JSON.parse(r.payload) as { tag: string }).tag)
  t.same([...tags].sort(), matching.map((e) => `pokemon-${e.message.encounter_id}`).sort(), 'every matching event once, no other')

  // An alarm written on A is matched on B at once, not after PUSH_MEMBER_REFRESH_SECONDS.
  const eevee = spawn({ pokemon_id: 133 })
  const bHeardAgain = heard(b, 'member-state')
  t.ok((await a.inject({ method: 'POST', url: '/api/monsters', headers: member, payload: { pokemon_id: 133, min_iv: 0 } })).statusCode < 300)
  await bHeardAgain
  t.same((await b.inject({ method: 'POST', url: `/api/scanner-webhook/${FEED}`, payload: [eevee] })).json(), { accepted: 1 })
  await settled()
  t.equal(push.received.filter((r) => (JSON.parse(r.payload) as { tag: string }).tag === `pokemon-${eevee.message.encounter_id}`).length, 1, 'B matched the alarm written on A')
})
