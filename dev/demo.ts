/**
 * `npm run demo`: the whole product on one machine with development stand-ins, for trying it out.
 * - MariaDB: the one on 127.0.0.1:3306, else a private throwaway server (dev/mariadb.ts);
 * - a development OIDC provider with a sign-in form and demo accounts (dev/oidc-provider.ts);
 * - the alarm engine stand-in (the one the tests use) on demo databases seeded with users, profiles,
 *   areas and alarms of every type (dev/seed.ts);
 * - the service itself in SSO mode with refresh-backed sessions and a two-minute JWT, so silent renewal
 *   can be watched in the browser's network panel.
 * It prints the address and the accounts, and Ctrl-C stops and removes everything it started.
 *
 * DEMO_PORT picks the service's port (default 8082, or a free one when taken; 0 for any free port).
 * DEMO_DB_PREFIX names the two demo databases (default alarm_web_demo), created on start and dropped
 * on exit. The browser tests start the same pieces in-process through `startDemo`.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import mariadb from 'mariadb'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/base/config.js'
import { startAlarmEngineFake } from '../test/fakes/alarm-engine.js'
import { demoDatabase, freePort, MariaDbMissing, type DemoDatabase } from './mariadb.js'
import { startDevOidcProvider } from './oidc-provider.js'
import { DEMO_ACCOUNTS, DEMO_FENCES, seedEngine } from './seed.js'

export const DEMO_PASSWORD = 'demo'
const CLIENT_ID = 'alarm-web-demo'

async function portFor (wanted: number): Promise<number> {
  if (wanted === 0) return await freePort()
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once('error', () => { resolve(false) })
    server.listen(wanted, '127.0.0.1', () => { server.close(() => { resolve(true) }) })
  })
  return free ? wanted : await freePort()
}

async function dropDatabases (db: DemoDatabase, names: { service: string, engine: string }): Promise<void> {
  const connection = await mariadb.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password })
  try {
    for (const name of Object.values(names)) await connection.query(`DROP DATABASE IF EXISTS \`${name}\``)
  } finally {
    await connection.end()
  }
}

async function recreateDatabases (db: DemoDatabase, prefix: string): Promise<{ service: string, engine: string }> {
  const names = { service: prefix, engine: `${prefix}_engine` }
  const connection = await mariadb.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password })
  try {
    for (const name of Object.values(names)) {
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    }
    await connection.query(`USE \`${names.engine}\``)
    await seedEngine(connection)
  } finally {
    await connection.end()
  }
  return names
}

export interface DemoOptions {
  /** 0 for any free port. */
  port: number
  dbPrefix: string
  /** Extra service configuration (for example Telegram, in the browser tests). */
  env?: Record<string, string>
  logLevel?: string
}

export interface Demo {
  url: string
  database: DemoDatabase
  databases: { service: string, engine: string }
  providerIssuer: string
  engineUrl: string
  app: Awaited<ReturnType<typeof buildApp>>
  /** Stops everything in reverse order of starting and drops the demo databases. */
  close: () => Promise<void>
}

/** Starts every piece of the demo; on a failure half-way, stops what had started and rethrows. */
export async function startDemo (options: DemoOptions): Promise<Demo> {
  const cleanups: Array<() => Promise<void> | void> = []
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch((err: unknown) => { console.error(err) })
  }
  try {
    const port = await portFor(options.port)
    const base = `http://127.0.0.1:${port}`
    const clientSecret = randomBytes(24).toString('base64url')
    // The provider (its key generation) starts while the databases are prepared.
    const providerStarting = startDevOidcProvider({
      accounts: DEMO_ACCOUNTS,
      password: DEMO_PASSWORD,
      clientId: CLIENT_ID,
      clientSecret,
      redirectUri: `${base}/api/auth/oidc/callback`,
      postLogoutRedirectUri: `${base}/login?loggedout=1`,
      accessTokenTtl: 300
    })
    // Handled where it is awaited; this only keeps an early failure from counting as unhandled meanwhile.
    providerStarting.catch(() => undefined)
    cleanups.push(async () => { await (await providerStarting).close() })

    const db = await demoDatabase()
    cleanups.push(db.stop)
    const names = await recreateDatabases(db, options.dbPrefix)
    cleanups.push(() => dropDatabases(db, names))

    const secret = randomBytes(16).toString('hex')
    const engine = await startAlarmEngineFake({
      database: names.engine,
      secret,
      host: db.host,
      port: db.port,
      user: db.user,
      password: db.password,
      settings: { fences: DEMO_FENCES }
    })
    cleanups.push(() => engine.close())
    const provider = await providerStarting

    const dataDir = mkdtempSync(join(tmpdir(), 'alarm-web-demo-data-'))
    cleanups.push(() => { rmSync(dataDir, { recursive: true, force: true }) })
    const admin = DEMO_ACCOUNTS.find((a) => a.role === 'admin')
    const config = loadConfig({
      NODE_ENV: 'development',
      LOG_LEVEL: options.logLevel ?? 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      CORS_ORIGIN: base,
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      WEB_DB_HOST: db.host,
      WEB_DB_PORT: String(db.port),
      WEB_DB_USER: db.user,
      WEB_DB_PASSWORD: db.password,
      WEB_DB_NAME: names.service,
      DB_HOST: db.host,
      DB_PORT: String(db.port),
      DB_USER: db.user,
      DB_PASSWORD: db.password,
      DB_NAME: names.engine,
      PORACLE_API_ADDRESS: engine.url,
      PORACLE_API_SECRET: secret,
      PORACLE_ADMIN_IDS: admin?.engineId ?? '',
      OIDC_PROVIDER_NAME: 'Demo SSO',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUTHORIZATION_URL: provider.authorizationUrl,
      OIDC_TOKEN_URL: provider.tokenUrl,
      OIDC_USERINFO_URL: provider.userinfoUrl,
      OIDC_END_SESSION_URL: provider.endSessionUrl,
      OIDC_REVOCATION_URL: provider.revocationUrl,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_USE_REFRESH_TOKENS: 'true',
      OIDC_ACCESS_TOKEN_MINUTES: '2',
      ...options.env
    })
    const app = await buildApp({ config })
    cleanups.push(() => app.close())
    await app.listen({ host: '127.0.0.1', port })

    // SSO mode, switched on the way an admin does it (the switch is guarded and asks for a confirmation).
    const { token } = app.auth.mint({ userId: admin?.engineId ?? '', username: 'demo setup', type: 'chat:user', isAdmin: true, enabled: true, profileNo: 1 }, 1)
    const sso = await app.inject({ method: 'PUT', url: '/api/settings/enable_oidc', headers: { authorization: `Bearer ${token}` }, payload: { value: 'true', confirm: true } })
    if (sso.statusCode !== 200) throw new Error(`could not switch the demo to SSO mode: ${sso.body}`)

    return { url: base, database: db, databases: names, providerIssuer: provider.issuer, engineUrl: engine.url, app, close }
  } catch (err) {
    await close()
    throw err
  }
}

async function main (): Promise<void> {
  const started = Date.now()
  const client = spawnSync(process.execPath, ['scripts/builds.mjs', 'client'], { stdio: 'inherit' })
  if (client.status !== 0) process.exit(client.status ?? 1)

  let demo: Demo
  try {
    demo = await startDemo({ port: Number(process.env.DEMO_PORT ?? 8082), dbPrefix: process.env.DEMO_DB_PREFIX ?? 'alarm_web_demo', ...(process.env.LOG_LEVEL !== undefined && { logLevel: process.env.LOG_LEVEL }) })
  } catch (err) {
    console.error(err instanceof MariaDbMissing ? err.message : err)
    process.exit(1)
  }
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      console.log('\nstopping the demo…')
      demo.close().then(() => { process.exit(0) }, (err: unknown) => { console.error(err); process.exit(1) })
    })
  }

  const accounts = DEMO_ACCOUNTS.map((a) => `    ${a.username.padEnd(8)} ${a.role.padEnd(7)} ${a.displayName}`).join('\n')
  console.log(`
alarm-web demo is running (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)

  Open      ${demo.url}
  Accounts  (password: ${DEMO_PASSWORD})
${accounts}

  Database  ${demo.database.description}; demo databases ${demo.databases.service} and ${demo.databases.engine} (dropped on exit)
  Stand-ins the development identity provider at ${demo.providerIssuer}, the alarm engine stand-in at ${demo.engineUrl}

Press Ctrl-C to stop everything.`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
