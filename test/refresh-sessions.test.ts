import { createHash, randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, connect, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { bearer, build, buildInstance, seedHuman, JWT_SECRET, type Test, type TestApp } from './helper.js'
import { startOidcProvider, type OidcProviderHandle } from './fakes/oidc-provider.js'
import { followLogin } from './fakes/browser-flow.js'
import { toSqlTime } from '../db/client.js'
import type { Config } from '../plugins/base/config.js'
import { hashToken, newOpaqueToken } from '../plugins/domain/refresh-sessions.js'
import { KEY_FILE, KeySetupError, decryptToken, derivedKey, encryptToken, keyId, keyRingOf, loadKeyRing } from '../lib/refresh-token-keys.js'
import { CLEANUP_LOCK, cleanupPass, runSessionCleanup } from '../plugins/domain/session-cleanup.js'

const USER = '222222222222222222'
const ADMIN = '999999999999999999'
const DAY = 86_400_000

interface Row {
  id: number
  token_hash: string
  family_id: string
  family_issued_at: string
  user_id: string
  issuer: string
  subject: string
  encrypted_refresh_token: string
  encryption_key_id: string
  expires_at: string
  revoked_at: string | null
  revoked_reason: string | null
  replaced_by_hash: string | null
}

interface SetupOptions {
  flag?: boolean
  rotate?: boolean
  issueRefreshTokens?: boolean
  /** Rewrites the token URL the service is configured with (to put a proxy in front of the provider). */
  tokenUrl?: (op: OidcProviderHandle) => Promise<string> | string
  config?: Partial<Config>
}

interface Harness extends TestApp {
  op: OidcProviderHandle
  dataDir: string
  /** Every response body and Location header the service sent in this test. */
  seen: string[]
  inject: (opts: InjectOptions) => Promise<LightMyRequestResponse>
  login: () => Promise<URLSearchParams>
  refresh: (refreshToken: unknown) => Promise<LightMyRequestResponse>
  revoke: (refreshToken: unknown) => Promise<LightMyRequestResponse>
  rows: (familyId?: string) => Promise<Row[]>
  rowOf: (opaque: string) => Promise<Row>
  setSetting: (key: string, value: string) => Promise<void>
}

async function setup (t: Test, options: SetupOptions = {}): Promise<Harness> {
  const op = await startOidcProvider({
    redirectUris: ['http://localhost/api/auth/oidc/callback'],
    accounts: { [USER]: { preferred_username: 'Ash' }, [ADMIN]: { preferred_username: 'Oak' } },
    nextAccount: USER,
    rotateRefreshTokens: options.rotate ?? true,
    issueRefreshTokens: options.issueRefreshTokens ?? true
  })
  t.teardown(() => op.close())
  const dataDir = await mkdtemp(join(tmpdir(), 'aw-refresh-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const testApp = await build(t, {
    env: {
      OIDC_CLIENT_ID: op.clientId,
      OIDC_CLIENT_SECRET: op.clientSecret,
      OIDC_AUTHORIZATION_URL: op.authorizationUrl,
      OIDC_TOKEN_URL: options.tokenUrl ? await options.tokenUrl(op) : op.tokenUrl,
      OIDC_USERINFO_URL: op.userinfoUrl,
      OIDC_REVOCATION_URL: op.revocationUrl,
      OIDC_USE_REFRESH_TOKENS: String(options.flag ?? true),
      DATA_DIR: dataDir
    },
    config: { RATE_LIMIT_AUTH_MAX: 10_000, ...options.config },
    logLevel: 'debug'
  })
  const { app } = testApp
  await seedHuman(testApp, { id: USER, name: 'Ash' })
  await seedHuman(testApp, { id: ADMIN, name: 'Oak' })
  testApp.engine.set({ admins: { discord: [ADMIN], telegram: [] } })
  const seen: string[] = []

  const inject = async (opts: InjectOptions): Promise<LightMyRequestResponse> => {
    const res = await app.inject(opts)
    seen.push(res.body, String(res.headers.location ?? ''))
    return res
  }
  const post = (url: string) => (refreshToken: unknown) =>
    inject({ method: 'POST', url, payload: { refreshToken } })
  const setSetting = async (key: string, value: string): Promise<void> => {
    await app.db.pool.query('INSERT INTO site_settings (`key`, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)', [key, value])
    app.siteSettings.evict(key)
  }
  await setSetting('enable_oidc', 'true')

  return {
    ...testApp,
    get logs () { return testApp.logs },
    op,
    dataDir,
    seen,
    inject,
    setSetting,
    async login () {
      const flow = await followLogin({ serviceInject: inject })
      return flow.fragment
    },
    refresh: post('/api/auth/oidc/refresh'),
    revoke: post('/api/auth/oidc/refresh/revoke'),
    async rows (familyId) {
      const sql = 'SELECT * FROM oidc_sessions' + (familyId === undefined ? '' : ' WHERE family_id = ?') + ' ORDER BY id'
      return await app.db.pool.query(sql, familyId === undefined ? [] : [familyId]) as Row[]
    },
    async rowOf (opaque) {
      const [row] = await app.db.pool.query('SELECT * FROM oidc_sessions WHERE token_hash = ?', [hashToken(opaque)]) as Row[]
      if (row === undefined) throw new Error('no row for that token')
      return row
    }
  }
}

const jwtLifetime = (jwt: string): number => {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { exp: number, iat: number }
  return payload.exp - payload.iat
}

/** Every provider refresh token the service ever held: those it sent to the provider, and those stored. */
async function providerTokens (h: Harness): Promise<string[]> {
  const sent = h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').map((r) => r.params.get('refresh_token') ?? '')
  const { ring } = await loadKeyRing(h.config)
  const stored = (await h.rows()).map((r) => decryptToken(ring, r.encrypted_refresh_token, r.encryption_key_id, r.family_id))
  return [...new Set([...sent, ...stored])].filter((token) => token !== '')
}

const usable = (rows: Row[]) => rows.filter((r) => r.revoked_at === null)

// ---------------------------------------------------------------------------------------------------

t.test('sign-in with refresh on starts a family: hashed token, encrypted provider token, short JWT', async (t) => {
  const h = await setup(t)
  const fragment = await h.login()
  const token = fragment.get('token') ?? ''
  const opaque = fragment.get('refresh_token') ?? ''
  t.equal(jwtLifetime(token), 30 * 60, 'JWT of OIDC_ACCESS_TOKEN_MINUTES')
  t.match(opaque, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url')
  t.ok(h.op.authorizationRequests[0]?.get('scope')?.split(' ').includes('offline_access'), 'offline access asked for')

  const row = await h.rowOf(opaque)
  t.equal(row.token_hash, createHash('sha256').update(opaque).digest('hex'))
  t.equal(row.user_id, USER)
  t.equal(row.subject, USER)
  t.equal(row.issuer, h.op.issuer)
  t.equal(row.revoked_at, null)
  t.equal(Date.parse(`${row.expires_at}Z`) - Date.parse(`${row.family_issued_at}Z`), 30 * DAY, 'expiry is the family cap')
  t.equal(row.family_issued_at.slice(0, 19), toSqlTime(h.clock.now()).slice(0, 19))

  await t.rejects(stat(join(h.dataDir, KEY_FILE)), 'no key file is written')
  t.equal(row.encryption_key_id, keyId(derivedKey(JWT_SECRET)), 'encrypted under the key derived from JWT_SECRET')
  const [providerToken] = await providerTokens(h)
  t.ok(providerToken !== undefined && providerToken.length > 10)
  t.notOk(row.encrypted_refresh_token.includes(providerToken ?? '-'), 'not stored in clear')
})

t.test('a rotating provider: a chain of 10 refreshes, each rotating both tokens', async (t) => {
  const h = await setup(t, { rotate: true })
  let opaque = (await h.login()).get('refresh_token') ?? ''
  const familyId = (await h.rowOf(opaque)).family_id
  const spent: string[] = []
  for (let i = 0; i < 10; i++) {
    h.clock.advance(29 * 60_000)
    const res = await h.refresh(opaque)
    t.equal(res.statusCode, 200, `refresh ${i + 1}`)
    const body = res.json() as { token: string, refreshToken: string, expiresIn: number }
    t.equal(body.expiresIn, 1800)
    t.equal(jwtLifetime(body.token), 1800)
    t.not(body.refreshToken, opaque)
    t.equal(res.headers['cache-control'], 'no-store')
    spent.push(opaque)
    opaque = body.refreshToken
  }
  const rows = await h.rows(familyId)
  t.equal(rows.length, 11, 'one row per link')
  t.same(usable(rows).map((r) => r.token_hash), [hashToken(opaque)], 'only the newest is usable')
  t.ok(rows.slice(0, 10).every((r, i) => r.revoked_reason === 'rotation' && r.replaced_by_hash === rows[i + 1]?.token_hash), 'each rotated row links its successor')
  t.equal(new Set(rows.map((r) => r.expires_at)).size, 1, 'renewal never extends the family')

  const sent = h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').map((r) => r.params.get('refresh_token'))
  t.equal(sent.length, 10)
  t.equal(new Set(sent).size, 10, 'each provider token was used once: the rotated one was stored each time')
  t.equal(h.op.grantErrors.length, 0)
  t.equal(h.op.userinfoRequests.length, 1 + 10, 'userinfo re-fetched on every renewal')
})

t.test('a non-rotating provider: the provider token is carried forward, re-encrypted', async (t) => {
  const h = await setup(t, { rotate: false })
  let opaque = (await h.login()).get('refresh_token') ?? ''
  const first = await h.rowOf(opaque)
  for (let i = 0; i < 3; i++) {
    const res = await h.refresh(opaque)
    t.equal(res.statusCode, 200)
    opaque = (res.json() as { refreshToken: string }).refreshToken
  }
  const sent = h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').map((r) => r.params.get('refresh_token'))
  t.equal(sent.length, 3)
  t.equal(new Set(sent).size, 1, 'the same provider token every time')
  const last = await h.rowOf(opaque)
  t.not(last.encrypted_refresh_token, first.encrypted_refresh_token, 'fresh ciphertext (new IV)')
  const [token] = await providerTokens(h)
  t.equal(token, sent[0])
})

t.test('replaying a spent token revokes the whole family; the newest token fails too', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  const t1 = (await h.refresh(t0)).json().refreshToken as string
  const t2 = (await h.refresh(t1)).json().refreshToken as string
  const grants = h.op.tokenRequests.length

  const replay = await h.refresh(t0)
  t.equal(replay.statusCode, 401)
  t.same(replay.json(), { error: 'invalid_grant' })
  t.equal(h.op.tokenRequests.length, grants, 'a replay never reaches the provider')
  const rows = await h.rows((await h.rowOf(t0)).family_id)
  t.equal(usable(rows).length, 0, 'no usable row left')
  t.equal(rows.at(-1)?.revoked_reason, 'replay_detected')
  t.equal((await h.refresh(t2)).statusCode, 401, 'the newest token is dead as well')
  t.ok(h.logs.some((l) => l['event'] === 'LogOidcRefreshFamilyRevoked' && l['reason'] === 'replay_detected' && l['level'] === 40), 'logged as a warning')
})

t.test('20 concurrent refreshes of one token: at most one 200, and nothing usable afterwards', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  const familyId = (await h.rowOf(t0)).family_id
  const answers = await Promise.all(Array.from({ length: 20 }, () => h.refresh(t0)))
  const ok = answers.filter((r) => r.statusCode === 200)
  t.ok(ok.length <= 1, `${ok.length} succeeded`)
  t.ok(answers.every((r) => r.statusCode === 200 || (r.statusCode === 401 && r.json().error === 'invalid_grant')), 'only 200 or 401')
  for (const res of ok) t.equal((await h.refresh(res.json().refreshToken as string)).statusCode, 401, 'the winner\'s successor is not usable')
  const rows = await h.rows(familyId)
  t.equal(usable(rows).length, 0, 'no usable row in the family')
  t.notOk(rows.some((r) => r.revoked_reason === 'rotating'), 'no rotation left half-done')
  t.ok(h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').length <= 1, 'the provider token was sent at most once')
})

t.test('a replay while a rotation is talking to the provider stops that rotation\'s successor', async (t) => {
  let hold: (() => void) | undefined
  let arrived: (() => void) | undefined
  const arrivedAt = new Promise<void>((resolve) => { arrived = resolve })
  // A pass-through in front of the provider's token endpoint that can hold refresh grants.
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const forward = (): void => {
        const target = new URL(proxyTarget)
        const out = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        })
        out.end(body)
      }
      if (body.toString().includes('grant_type=refresh_token') && hold === undefined) {
        hold = forward
        arrived?.()
      } else forward()
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { proxy.closeAllConnections(); proxy.close(() => resolve()) }))
  let proxyTarget = ''
  const h = await setup(t, {
    tokenUrl: (op) => {
      proxyTarget = op.tokenUrl
      return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/token`
    }
  })

  const t0 = (await h.login()).get('refresh_token') ?? ''
  const familyId = (await h.rowOf(t0)).family_id
  const inFlight = h.refresh(t0)
  await arrivedAt
  t.equal((await h.rowOf(t0)).revoked_reason, 'rotating', 'the token is claimed while the provider is asked')

  const replay = await h.refresh(t0)
  t.equal(replay.statusCode, 401, 'the replay is refused at once')
  hold?.()
  const first = await inFlight
  t.equal(first.statusCode, 401, 'the rotation in flight is refused as well')
  const rows = await h.rows(familyId)
  t.equal(rows.length, 1, 'its successor was never inserted')
  t.equal(rows[0]?.revoked_reason, 'replay_detected')
  t.equal(h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').length, 1)
})

t.test('renewal re-validates at the provider and in the service; each failure revokes the family', async (t) => {
  // One site for all cases: each signs in afresh, breaks one thing, and puts it back afterwards.
  const h = await setup(t)
  const restoreSettings = async () => {
    await h.setSetting('enable_roles', 'false')
    await h.setSetting('enable_oidc', 'true')
  }
  const cases: Array<{ name: string, reason: string, act: (t: Test) => Promise<void>, undo?: () => Promise<void> }> = [
    { name: 'provider revoked the grant', reason: 'provider_revoked', act: async (t) => { t.ok(h.op.revokeGrantsOf(USER) > 0, 'the provider had a grant') } },
    { name: 'account disabled at the provider', reason: 'provider_revoked', act: async () => { h.op.disableAccount(USER) }, undo: async () => { h.op.enableAccount(USER) } },
    {
      name: 'user blocked by an admin',
      reason: 'account_blocked',
      act: async () => { await h.app.engineDb.pool.query('UPDATE humans SET admin_disable = 1 WHERE id = ?', [USER]) },
      undo: async () => { await h.app.engineDb.pool.query('UPDATE humans SET admin_disable = 0 WHERE id = ?', [USER]) }
    },
    {
      name: 'user deleted from the engine',
      reason: 'user_not_registered',
      act: async () => { await h.app.engineDb.pool.query('DELETE FROM humans WHERE id = ?', [USER]) },
      undo: () => seedHuman(h, { id: USER, name: 'Ash', profileName: null })
    },
    {
      name: 'role gate fails (no usable role id)',
      reason: 'role_check_failed',
      act: async () => { await h.setSetting('enable_roles', 'true'); await h.setSetting('allowed_role_ids', 'not-a-role') },
      undo: restoreSettings
    },
    { name: 'SSO switched off for non-admins', reason: 'oidc_disabled', act: () => h.setSetting('enable_oidc', 'false'), undo: restoreSettings },
    { name: 'userinfo subject changed', reason: 'userinfo_failed|subject_changed', act: async () => { h.op.userinfoOverride = { body: { sub: 'someone-else' } } } },
    { name: 'identity claim now names another user', reason: 'identity_changed', act: async () => { h.op.userinfoOverride = { body: { sub: USER, chat_id: ADMIN } } } },
    { name: 'userinfo failing', reason: 'userinfo_failed', act: async () => { h.op.userinfoOverride = { status: 500, body: 'down' } } },
    { name: 'token endpoint failing', reason: 'provider_revoked', act: async () => { h.op.tokenOverride = { status: 503, body: 'maintenance' } } }
  ]
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const t0 = (await h.login()).get('refresh_token') ?? ''
      const t1 = (await h.refresh(t0)).json().refreshToken as string
      await c.act(t)
      const res = await h.refresh(t1)
      await c.undo?.()
      h.op.userinfoOverride = null
      h.op.tokenOverride = null
      t.equal(res.statusCode, 401)
      t.same(res.json(), { error: 'invalid_grant' })
      const rows = await h.rows((await h.rowOf(t1)).family_id)
      t.equal(usable(rows).length, 0, 'family revoked')
      t.match(rows.at(-1)?.revoked_reason ?? '', new RegExp(`^(${c.reason})$`))
      t.equal(rows.length, 2, 'no successor')
    })
  }
})

/**
 * The engine's address as the app knows it, forwarding to the engine fake: `stop` closes the listener
 * (connections refused, as a stopped engine's are) and `start` opens it again on the same port.
 */
async function engineSwitch (t: Test): Promise<{ url: string, target: (url: string) => void, stop: () => Promise<void>, start: () => Promise<void> }> {
  let target = { host: '127.0.0.1', port: 9 }
  const sockets = new Set<Socket>()
  const server = createTcpServer((socket) => {
    const upstream = connect(target.port, target.host)
    for (const s of [socket, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}) }
    socket.pipe(upstream).pipe(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const stop = async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  t.teardown(async () => { if (server.listening) await stop() })
  return {
    url: `http://127.0.0.1:${port}`,
    target: (url) => { const u = new URL(url); target = { host: u.hostname, port: Number(u.port) } },
    stop,
    start: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  }
}

t.test('an engine outage signs nobody out: refresh answers 503, keeps the family and the access token; it renews once the engine is back', async (t) => {
  const engine = await engineSwitch(t)
  const h = await setup(t, { config: { PORACLE_API_ADDRESS: engine.url, ENGINE_TIMEOUT_MS: 500 } })
  engine.target(h.engine.url)
  const fragment = await h.login()
  const jwt = fragment.get('token') ?? ''
  const me = () => h.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${jwt}` } })
  let refreshToken = fragment.get('refresh_token') ?? ''
  const familyId = (await h.rowOf(refreshToken)).family_id

  const outages: Array<[string, () => Promise<void>, () => Promise<void>]> = [
    ['stopped', () => engine.stop(), () => engine.start()],
    ['answering 503', async () => { h.engine.failWith({ status: 503 }) }, async () => { h.engine.reset() }],
    ['hanging', async () => { h.engine.hang() }, async () => { h.engine.reset() }]
  ]
  for (const [what, down, up] of outages) {
    await down()
    const during = await h.refresh(refreshToken)
    t.equal(during.statusCode, 503, `${what}: 503`)
    t.equal(during.json().error, 'The alarm engine is unreachable right now. Please try again in a moment.')
    t.equal(during.headers['retry-after'], '5')
    const again = await h.refresh(refreshToken)
    t.equal(again.statusCode, 503, `${what}: the same token asked again is no replay`)
    t.equal(usable(await h.rows(familyId)).length, 1, `${what}: the family keeps its one usable token`)
    await up()
    t.equal((await me()).statusCode, 200, `${what}: the access token is still honoured once the engine is back`)
    const after = await h.refresh(refreshToken)
    t.equal(after.statusCode, 200, `${what}: the same refresh token renews once the engine is back`)
    refreshToken = after.json().refreshToken as string
  }
  t.ok(h.logs.some((l) => l.event === 'LogOidcRefreshPostponed'), 'each postponement is logged')
  t.notOk((await h.rows(familyId)).some((r) => r.revoked_reason === 'engine_unavailable'), 'nothing was revoked for the outage')

  // A revocation during an outage still acts at once.
  await engine.stop()
  t.equal((await h.revoke(refreshToken)).statusCode, 204)
  await engine.start()
  t.equal((await h.refresh(refreshToken)).statusCode, 401, 'the revoked family stays revoked')
  t.equal((await me()).statusCode, 401, 'and its access token is refused')
})

t.test('an admin keeps renewing when SSO is off for everyone else', async (t) => {
  const h = await setup(t)
  h.op.nextAccount = ADMIN
  const t0 = (await h.login()).get('refresh_token') ?? ''
  await h.setSetting('enable_oidc', 'false')
  const res = await h.refresh(t0)
  t.equal(res.statusCode, 200)
})

t.test('the family cap: refused at FamilyIssuedAt + lifetime, even with the newest token', async (t) => {
  const h = await setup(t)
  let opaque = (await h.login()).get('refresh_token') ?? ''
  h.clock.advance(15 * DAY)
  opaque = (await h.refresh(opaque)).json().refreshToken as string
  h.clock.advance(15 * DAY - 1000)
  opaque = (await h.refresh(opaque)).json().refreshToken as string
  t.ok(opaque, 'still inside the cap one second before it')
  h.clock.advance(1000)
  const grants = h.op.tokenRequests.length
  const res = await h.refresh(opaque)
  t.equal(res.statusCode, 401)
  t.equal(h.op.tokenRequests.length, grants, 'the provider is not asked')
  const rows = await h.rows((await h.rowOf(opaque)).family_id)
  t.equal(usable(rows).length, 0)
  t.equal(rows.at(-1)?.revoked_reason, 'absolute_cap')
})

t.test('an expired row inside the cap is refused', async (t) => {
  const h = await setup(t)
  const opaque = (await h.login()).get('refresh_token') ?? ''
  await h.app.db.pool.query('UPDATE oidc_sessions SET expires_at = ? WHERE token_hash = ?', [toSqlTime(h.clock.now() - 1000), hashToken(opaque)])
  const res = await h.refresh(opaque)
  t.equal(res.statusCode, 401)
  t.equal(h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').length, 0)
})

t.test('a provider token that no longer decrypts (key changed or data tampered) revokes the family', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  // The key the row was written with is gone: same row, encrypted under a key the service never had.
  const row = await h.rowOf(t0)
  const foreign = encryptToken(keyRingOf(randomBytes(32)), 'whatever', row.family_id)
  await h.app.db.pool.query('UPDATE oidc_sessions SET encrypted_refresh_token = ?, encryption_key_id = ? WHERE id = ?', [foreign.ciphertext, foreign.keyId, row.id])
  const res = await h.refresh(t0)
  t.equal(res.statusCode, 401)
  const rows = await h.rows(row.family_id)
  t.equal(usable(rows).length, 0)
  t.equal(rows[0]?.revoked_reason, 'decrypt_failed')
  t.equal(h.op.tokenRequests.filter((r) => r.grantType === 'refresh_token').length, 0, 'nothing sent to the provider')

  const t0b = (await h.login()).get('refresh_token') ?? ''
  const other = await h.rowOf(t0b)
  // Change the second-to-last character: always a full base64 digit, so the bytes really change.
  const sealed = other.encrypted_refresh_token
  const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1)
  await h.app.db.pool.query('UPDATE oidc_sessions SET encrypted_refresh_token = ? WHERE id = ?', [flipped, other.id])
  t.equal((await h.refresh(t0b)).statusCode, 401, 'a tampered ciphertext fails closed')
  t.equal((await h.rowOf(t0b)).revoked_reason, 'decrypt_failed')
})

t.test('key management: derived key, configured key, retired keys, the old key file, family binding', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'aw-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const base = { OIDC_TOKEN_ENCRYPTION_KEY: '', OIDC_TOKEN_RETIRED_KEYS: [], JWT_SECRET }
  const one = await loadKeyRing({ ...base, DATA_DIR: join(dir, 'one') })
  const two = await loadKeyRing({ ...base, DATA_DIR: join(dir, 'two') })
  t.equal(one.ring.current.id, keyId(derivedKey(JWT_SECRET)), 'without a configured key: the one derived from JWT_SECRET')
  t.equal(two.ring.current.id, one.ring.current.id, 'two instances with separate data folders have the same key')
  t.not(one.ring.current.id, keyId(derivedKey(`${JWT_SECRET}x`)), 'another JWT_SECRET derives another key')
  t.not(derivedKey(JWT_SECRET).toString('base64'), Buffer.from(JWT_SECRET).subarray(0, 32).toString('base64'), 'the key is not the secret itself')
  await t.rejects(stat(join(dir, 'one')), 'nothing is written')

  const sealed = encryptToken(one.ring, 'provider-token', 'family-a')
  t.equal(decryptToken(two.ring, sealed.ciphertext, sealed.keyId, 'family-a'), 'provider-token', 'what one instance encrypts the other decrypts')
  t.throws(() => decryptToken(one.ring, sealed.ciphertext, sealed.keyId, 'family-b'), 'bound to its family')

  const configured = randomBytes(32).toString('base64')
  const rotated = await loadKeyRing({ ...base, DATA_DIR: join(dir, 'one'), OIDC_TOKEN_ENCRYPTION_KEY: configured })
  t.equal(rotated.ring.current.id, keyId(Buffer.from(configured, 'base64')), 'a configured key encrypts')
  t.equal(decryptToken(rotated.ring, sealed.ciphertext, sealed.keyId, 'family-a'), 'provider-token', 'the derived key still decrypts')

  const sealedByConfigured = encryptToken(rotated.ring, 'second', 'family-c')
  const next = await loadKeyRing({ ...base, DATA_DIR: join(dir, 'one'), OIDC_TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'), OIDC_TOKEN_RETIRED_KEYS: [configured] })
  t.equal(decryptToken(next.ring, sealedByConfigured.ciphertext, sealedByConfigured.keyId, 'family-c'), 'second', 'a retired key from the configuration decrypts')

  const legacy = randomBytes(32)
  await mkdir(join(dir, 'old'))
  await writeFile(join(dir, 'old', KEY_FILE), `${legacy.toString('base64')}\n`, { mode: 0o600 })
  const upgraded = await loadKeyRing({ ...base, DATA_DIR: join(dir, 'old') })
  t.equal(upgraded.legacyFile, join(dir, 'old', KEY_FILE), 'the key file of an earlier version is found')
  t.equal(upgraded.ring.current.id, keyId(derivedKey(JWT_SECRET)), 'but new tokens use the derived key')
  const sealedByFile = encryptToken(keyRingOf(legacy), 'third', 'family-d')
  t.equal(decryptToken(upgraded.ring, sealedByFile.ciphertext, sealedByFile.keyId, 'family-d'), 'third', 'what the key file encrypted still decrypts')
  t.equal((await readFile(join(dir, 'old', KEY_FILE), 'utf8')).trim(), legacy.toString('base64'), 'the file is left as it was')

  await writeFile(join(dir, 'old', 'oidc-token-encryption.2026-11.key'), configured)
  await t.rejects(loadKeyRing({ ...base, DATA_DIR: join(dir, 'old') }), KeySetupError, 'a retired key file in DATA_DIR stops the start: it would differ between instances')
  await t.rejects(loadKeyRing({ ...base, DATA_DIR: join(dir, 'one'), OIDC_TOKEN_ENCRYPTION_KEY: 'c2hvcnQ=' }), 'a short key is refused')
})

t.test('upgrade: a family encrypted under the old key file keeps renewing, then moves to the derived key', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  const row = await h.rowOf(t0)
  const { ring } = await loadKeyRing(h.config)
  const providerToken = decryptToken(ring, row.encrypted_refresh_token, row.encryption_key_id, row.family_id)
  // The row as an earlier version left it: encrypted under the key file it created in DATA_DIR.
  const legacy = randomBytes(32)
  await writeFile(join(h.dataDir, KEY_FILE), `${legacy.toString('base64')}\n`, { mode: 0o600 })
  const old = encryptToken(keyRingOf(legacy), providerToken, row.family_id)
  await h.app.db.pool.query('UPDATE oidc_sessions SET encrypted_refresh_token = ?, encryption_key_id = ? WHERE id = ?', [old.ciphertext, old.keyId, row.id])

  const upgraded = await buildInstance(t, h)
  const renewed = await upgraded.inject({ method: 'POST', url: '/api/auth/oidc/refresh', payload: { refreshToken: t0 } })
  t.equal(renewed.statusCode, 200, 'the session made before the upgrade renews')
  const successor = await h.rowOf(renewed.json().refreshToken)
  t.equal(successor.encryption_key_id, keyId(derivedKey(JWT_SECRET)), 'its successor is encrypted under the derived key')
  const otherDir = await mkdtemp(join(tmpdir(), 'aw-refresh-other-'))
  t.teardown(() => rm(otherDir, { recursive: true, force: true }))
  const elsewhere = await buildInstance(t, h, { DATA_DIR: otherDir })
  const again = await elsewhere.inject({ method: 'POST', url: '/api/auth/oidc/refresh', payload: { refreshToken: renewed.json().refreshToken } })
  t.equal(again.statusCode, 200, 'and from then on renews on an instance without the key file too')
})

t.test('revoke answers 204 and ends the family even when the provider cannot be reached', async (t) => {
  const h = await setup(t, { config: { OIDC_REVOCATION_URL: 'http://127.0.0.1:9/revoke' } })
  const t0 = (await h.login()).get('refresh_token') ?? ''
  t.equal((await h.revoke(t0)).statusCode, 204)
  t.equal(usable(await h.rows()).length, 0)
  t.ok(h.logs.some((l) => l['msg'] === 'provider token revocation failed' && l['kind'] === 'unreachable'))
})

t.test('revoke: 204 always; a known token ends its family here and at the provider', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  const t1 = (await h.refresh(t0)).json().refreshToken as string
  const [current] = (await providerTokens(h)).slice(-1)

  const res = await h.revoke(t1)
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  const rows = await h.rows((await h.rowOf(t1)).family_id)
  t.equal(usable(rows).length, 0)
  t.equal(rows.at(-1)?.revoked_reason, 'logout')
  t.equal(h.op.revocations.length, 1, 'RFC 7009 call at the provider')
  t.equal(h.op.revocations[0]?.status, 200)
  t.ok(current !== undefined && h.op.revocations.some((r) => r.token === current), 'the current provider token was revoked')
  t.equal((await h.refresh(t1)).statusCode, 401)

  t.equal((await h.revoke(t1)).statusCode, 204, 'already revoked')
  t.equal((await h.revoke(newOpaqueToken().token)).statusCode, 204, 'unknown')
  t.equal(h.op.revocations.length, 1, 'nothing more to revoke at the provider')
})

t.test('admin hook: DELETE /api/admin/users/sessions ends every family of a user', async (t) => {
  const h = await setup(t)
  const a = (await h.login()).get('refresh_token') ?? ''
  const b = (await h.login()).get('refresh_token') ?? ''
  const bNext = (await h.refresh(b)).json().refreshToken as string

  const asUser = await h.inject({ method: 'DELETE', url: `/api/admin/users/sessions?id=${USER}`, headers: bearer(h.app, { userId: USER }) })
  t.equal(asUser.statusCode, 403)
  t.equal((await h.inject({ method: 'DELETE', url: `/api/admin/users/sessions?id=${USER}` })).statusCode, 401)
  t.equal((await h.inject({ method: 'DELETE', url: '/api/admin/users/sessions', headers: bearer(h.app, { userId: ADMIN, isAdmin: true }) })).statusCode, 400)

  const res = await h.inject({ method: 'DELETE', url: `/api/admin/users/sessions?id=${USER}`, headers: bearer(h.app, { userId: ADMIN, isAdmin: true }) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { revoked: 2 })
  t.equal(usable(await h.rows()).length, 0)
  t.equal((await h.refresh(a)).statusCode, 401)
  t.equal((await h.refresh(bNext)).statusCode, 401)
  t.equal(h.op.revocations.length, 2, 'both provider tokens revoked')
  t.equal(await h.app.refreshSessions.revokeAllForUser(USER, 'account_blocked'), 0, 'nothing left')
})

t.test('an admin block ends every family in the same request: the next refresh is 401, the next API call 403', async (t) => {
  const h = await setup(t)
  const fragment = await h.login()
  const refreshToken = fragment.get('refresh_token') ?? ''
  const jwt = fragment.get('token') ?? ''
  const call = () => h.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: { authorization: `Bearer ${jwt}` } })
  t.equal((await call()).statusCode, 200, 'signed in, and "not blocked" is now cached')

  const block = await h.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${USER}`, headers: bearer(h.app, { userId: ADMIN, isAdmin: true }) })
  t.equal(block.statusCode, 200)
  t.equal(usable(await h.rows()).length, 0, 'no usable refresh token left')
  t.equal((await call()).statusCode, 403, 'the next API call is refused')
  t.equal((await h.refresh(refreshToken)).statusCode, 401, 'the next refresh is refused')
  t.equal(h.op.revocations.length, 1, 'the provider token was revoked too')
})

t.test('no usable token outlives the provider: never in a body, a redirect or a log line', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  let opaque = t0
  for (let i = 0; i < 3; i++) opaque = (await h.refresh(opaque)).json().refreshToken as string
  await h.refresh(t0)
  const t2 = (await h.login()).get('refresh_token') ?? ''
  h.op.tokenOverride = { status: 400, body: { error: 'invalid_grant' } }
  await h.refresh(t2)
  await h.revoke(opaque)
  const tokens = await providerTokens(h)
  t.ok(tokens.length >= 4, `${tokens.length} provider tokens seen`)
  const everything = h.seen.join('\n') + h.rawLogs()
  for (const token of tokens) t.notOk(everything.includes(token), 'provider token absent')
  t.notOk(h.rawLogs().includes(t0), 'the opaque token is not logged either')
})

t.test('refresh off: no row, no offline scope, 24 h JWT, refresh 401, revoke 204', async (t) => {
  const h = await setup(t, { flag: false })
  const fragment = await h.login()
  t.equal(fragment.get('refresh_token'), null)
  t.equal(jwtLifetime(fragment.get('token') ?? ''), 24 * 3600)
  t.notOk(h.op.authorizationRequests[0]?.get('scope')?.split(' ').includes('offline_access'))
  t.equal((await h.rows()).length, 0)
  t.equal((await h.refresh(newOpaqueToken().token)).statusCode, 401)
  t.equal((await h.revoke(newOpaqueToken().token)).statusCode, 204)
  await t.rejects(stat(join(h.dataDir, KEY_FILE)), 'no key file is created')
})

t.test('refresh on but the provider grants no refresh token: the standard session, logged', async (t) => {
  const h = await setup(t, { issueRefreshTokens: false })
  const fragment = await h.login()
  t.equal(fragment.get('refresh_token'), null)
  t.equal(jwtLifetime(fragment.get('token') ?? ''), 24 * 3600)
  t.equal((await h.rows()).length, 0)
  t.ok(h.logs.some((l) => l['event'] === 'LogOidcRefreshUnavailable' && l['userId'] === USER && l['level'] === 30))
})

t.test('anonymous endpoints: an expired or bogus Authorization header does not matter', async (t) => {
  const h = await setup(t)
  const t0 = (await h.login()).get('refresh_token') ?? ''
  const res = await h.inject({ method: 'POST', url: '/api/auth/oidc/refresh', headers: bearer(h.app, { userId: USER }, -60), payload: { refreshToken: t0 } })
  t.equal(res.statusCode, 200)
  const revoke = await h.inject({ method: 'POST', url: '/api/auth/oidc/refresh/revoke', headers: { authorization: 'Bearer nonsense' }, payload: { refreshToken: t0 } })
  t.equal(revoke.statusCode, 204)
})

t.test('bad bodies are 400, never 500', async (t) => {
  const h = await setup(t)
  const bodies: Array<[string, InjectOptions]> = [
    ['empty object', { payload: {} }],
    ['number', { payload: { refreshToken: 5 } }],
    ['null', { payload: { refreshToken: null } }],
    ['empty string', { payload: { refreshToken: '' } }],
    ['too long', { payload: { refreshToken: 'x'.repeat(513) } }],
    ['extra field', { payload: { refreshToken: 'abc', other: 1 } }],
    ['array', { payload: [{ refreshToken: 'abc' }] as unknown as object }],
    ['malformed JSON', { payload: '{"refreshToken":', headers: { 'content-type': 'application/json' } }],
    ['no body', { headers: { 'content-type': 'application/json' } }]
  ]
  for (const url of ['/api/auth/oidc/refresh', '/api/auth/oidc/refresh/revoke']) {
    for (const [name, opts] of bodies) {
      const res = await h.inject({ method: 'POST', url, ...opts })
      t.equal(res.statusCode, 400, `${url}: ${name}`)
      t.type(res.json().error, 'string')
    }
  }
})

t.test('both endpoints are under the auth rate limit', async (t) => {
  const h = await setup(t, { config: { RATE_LIMIT_AUTH_MAX: 3 } })
  const token = newOpaqueToken().token
  const statuses = []
  for (let i = 0; i < 2; i++) statuses.push((await h.refresh(token)).statusCode, (await h.revoke(token)).statusCode)
  t.same(statuses, [401, 204, 401, 429], 'one per-IP counter shared by the policy')
})

t.test('cleanup deletes exactly the expired rows and the revoked rows past retention', async (t) => {
  const { app, clock } = await build(t)
  const now = clock.now()
  const at = (offset: number) => toSqlTime(now + offset)
  const rows: Array<[string, number, number | null, boolean]> = [
    // name, expires offset, revoked offset (null = active), kept?
    ['active', 10 * DAY, null, true],
    ['expired active', -1000, null, false],
    ['rotated 1 day ago', 10 * DAY, -1 * DAY, true],
    ['rotated 2 days + 1 s ago', 10 * DAY, -2 * DAY - 1000, false],
    ['revoked just under retention', 10 * DAY, -2 * DAY + 1000, true],
    ['revoked long ago and expired', -DAY, -5 * DAY, false],
    ['expiring exactly now', 0, null, true]
  ]
  for (const [name, expires, revoked] of rows) {
    await app.db.pool.query(
      'INSERT INTO oidc_sessions (token_hash, family_id, family_issued_at, user_id, subject, encrypted_refresh_token, encryption_key_id, expires_at, revoked_at, revoked_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [hashToken(name), name, at(-20 * DAY), USER, USER, 'v1.x.y.z', 'k', at(expires), revoked === null ? null : at(revoked), revoked === null ? null : 'rotation'])
  }
  const deleted = await app.refreshSessions.purgeStale(now)
  t.equal(deleted, rows.filter((r) => !r[3]).length)
  const left = (await app.db.pool.query('SELECT family_id FROM oidc_sessions ORDER BY id') as Array<{ family_id: string }>).map((r) => r.family_id)
  t.same(left, rows.filter((r) => r[3]).map((r) => r[0]))

  // Another instance holds the lock: this one skips its pass.
  const other = await app.db.pool.getConnection()
  t.teardown(() => other.release())
  await other.query('SELECT GET_LOCK(?, 0)', [CLEANUP_LOCK])
  t.equal(await runSessionCleanup(app.db.pool, () => app.refreshSessions.purgeStale(now + 100 * DAY)), null)
  await other.query('SELECT RELEASE_LOCK(?)', [CLEANUP_LOCK])
  t.equal(await runSessionCleanup(app.db.pool, () => app.refreshSessions.purgeStale(now + 100 * DAY)), left.length, 'runs once the lock is free')
})

t.test('a failing cleanup pass is logged, not thrown, and the next pass runs normally', async (t) => {
  const testApp = await build(t, { logLevel: 'info' })
  const { app, clock } = testApp
  const broken = { getConnection: async () => { throw Object.assign(new Error('pool closed'), { code: 'ER_GET_CONNECTION_TIMEOUT' }) } }
  const purge = () => app.refreshSessions.purgeStale(clock.now())
  await cleanupPass(broken as unknown as typeof app.db.pool, purge, app.log)
  await cleanupPass(app.db.pool, purge, app.log)
  const lines = testApp.logs.filter((l) => String(l['msg']).startsWith('session cleanup'))
  t.match(lines, [{ level: 50, kind: 'ER_GET_CONNECTION_TIMEOUT', msg: 'session cleanup failed' }, { level: 30, deleted: 0, msg: 'session cleanup done' }])
})

t.test('the endpoints are documented in the OpenAPI document', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json' })
  const paths = (res.json() as { paths: Record<string, Record<string, unknown>> }).paths
  t.ok(paths['/api/auth/oidc/refresh/']?.['post'] ?? paths['/api/auth/oidc/refresh']?.['post'], 'refresh')
  t.ok(paths['/api/auth/oidc/refresh/revoke']?.['post'], 'revoke')
  t.ok(paths['/api/admin/users/sessions/']?.['delete'] ?? paths['/api/admin/users/sessions']?.['delete'], 'admin hook')
})
