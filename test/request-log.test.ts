import t from 'tap'
import { build, bearer, seedHuman } from './helper.js'

/**
 * The request log at `info` (the default level): a webhook's id is its address with its token, and the
 * admin routes take it in the query. Which values a log line may keep is read from each route's schema
 * (plugins/edge/request-log.ts, the `x-log-redact` keyword), so a whole admin session over those routes
 * leaves the token in no line.
 */

const ADMIN = '100000000000000001'
const DELEGATE = '100000000000000002'
const TOKEN = 'wh-token-5ac1d93e7b'
const WEBHOOK = `https://discord.com/api/webhooks/123456/${TOKEN}`

t.test('a full admin session over the routes that take a webhook in the query logs its token nowhere', async (t) => {
  const s = await build(t, { logLevel: 'info' })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })
  await seedHuman(s, { id: DELEGATE, name: 'Dee' })
  const headers = bearer(s.app, { userId: ADMIN, isAdmin: true })
  const id = encodeURIComponent(WEBHOOK)
  const session: Array<['GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH', string, Record<string, string>?]> = [
    ['GET', `/api/admin/users?search=${id}`],
    ['GET', `/api/admin/users?search=${TOKEN}`],
    ['GET', `/api/admin/users/by-id?id=${id}`],
    ['GET', `/api/admin/users/overview?id=${id}`],
    ['PUT', `/api/admin/users/pause?id=${id}`],
    ['PUT', `/api/admin/users/resume?id=${id}`],
    ['PATCH', `/api/admin/users?id=${id}`, { name: 'Raids' }],
    ['POST', '/api/admin/webhook-delegates', { webhookId: WEBHOOK, userId: DELEGATE }],
    ['GET', `/api/admin/webhook-delegates?webhookId=${id}`],
    ['POST', `/api/admin/users/impersonate?id=${id}`],
    ['DELETE', `/api/admin/users/sessions?id=${id}`],
    ['DELETE', `/api/admin/users/alarms?id=${id}`],
    ['DELETE', `/api/admin/users?id=${id}`],
    // Undeclared keys, and a URL no route serves, keep no value either.
    ['GET', `/api/admin/users/by-id?id=1&extra=${TOKEN}`],
    ['GET', `/api/no-such-route?hook=${id}`]
  ]
  const statuses: number[] = []
  for (const [method, url, payload] of session) {
    statuses.push((await s.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) })).statusCode)
  }
  t.ok(statuses.slice(0, 13).every((status) => status < 400), `the session's calls succeed: ${statuses.join(' ')}`)
  const lines = s.rawLogs()
  t.ok(lines.includes('/api/admin/users/by-id?id=%5Bredacted%5D'), 'the request lines are there, the id redacted')
  t.equal(lines.split(TOKEN).length - 1, 0, 'the token is in no log line')
  t.equal(lines.split(encodeURIComponent(TOKEN)).length - 1, 0, 'nor percent-encoded')
})

t.test('values a route declares and does not mark are kept, so the log still says what was asked', async (t) => {
  const s = await build(t, { logLevel: 'info' })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await s.app.inject({ method: 'GET', url: '/api/admin/users?page=2&pageSize=10&status=paused', headers: bearer(s.app, { userId: ADMIN, isAdmin: true }) })
  const line = s.logs.find((l) => (l.req as { url?: string } | undefined)?.url?.startsWith('/api/admin/users?') === true)
  t.equal((line?.req as { url: string }).url, '/api/admin/users?page=2&pageSize=10&status=paused')
})

t.test('sign-in callbacks: the code and the state never reach the log', async (t) => {
  const s = await build(t, { logLevel: 'info' })
  await s.app.inject({ method: 'GET', url: '/api/auth/oidc/callback?code=code-7d1e&state=state-91ab&session_state=ss-55ef&iss=https%3A%2F%2Fop.example' })
  await s.app.inject({ method: 'GET', url: '/api/auth/discord/callback?code=code-7d1e&state=state-91ab' })
  const lines = s.rawLogs()
  for (const secret of ['code-7d1e', 'state-91ab', 'ss-55ef']) t.notOk(lines.includes(secret), secret)
  t.ok(lines.includes('iss=https%3A%2F%2Fop.example'), 'the issuer, a declared plain value, is kept')
})
