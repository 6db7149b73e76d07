import fp from 'fastify-plugin'
import { createDb, type ConnectionOptions, type Db } from '../../db/client.js'
import type { Config } from '../base/config.js'

/**
 * Where the optional scanner database is: SCANNER_DB_CONNECTION as a URL (mysql://user:pass@host:3306/golbat)
 * or as the key=value form of the reference (Server=…;Port=…;Database=…;User=…;Password=…), else
 * SCANNER_DB_HOST and friends; null when neither is set. A connection string that cannot be read stops
 * the start-up with a message that does not repeat it (it holds a password).
 */
export function scannerConnection (config: Config): ConnectionOptions | null {
  const raw = config.SCANNER_DB_CONNECTION?.trim()
  if (raw !== undefined && raw !== '') {
    if (/^(mysql|mariadb):\/\//i.test(raw)) {
      try {
        const url = new URL(raw)
        return {
          host: url.hostname,
          port: url.port === '' ? 3306 : Number(url.port),
          user: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          database: decodeURIComponent(url.pathname.replace(/^\//, ''))
        }
      } catch {
        throw new Error('SCANNER_DB_CONNECTION is not a valid mysql:// URL')
      }
    }
    const parts = new Map(raw.split(';').map((p) => p.split('=')).filter((kv) => kv.length >= 2).map(([k, ...v]) => [String(k).trim().toLowerCase(), v.join('=').trim()]))
    const host = parts.get('server') ?? parts.get('host') ?? parts.get('data source')
    if (host === undefined) throw new Error('SCANNER_DB_CONNECTION must be mysql://user:pass@host:port/database or Server=…;Database=…;User=…;Password=…')
    return {
      host,
      port: Number(parts.get('port') ?? 3306),
      user: parts.get('user') ?? parts.get('user id') ?? parts.get('uid') ?? 'root',
      password: parts.get('password') ?? parts.get('pwd') ?? '',
      database: parts.get('database') ?? config.SCANNER_DB_NAME
    }
  }
  if (config.SCANNER_DB_HOST === undefined || config.SCANNER_DB_HOST.trim() === '') return null
  return {
    host: config.SCANNER_DB_HOST,
    port: config.SCANNER_DB_PORT,
    user: config.SCANNER_DB_USER,
    password: config.SCANNER_DB_PASSWORD,
    database: config.SCANNER_DB_NAME
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The scanner's (Golbat's) database, read-only; null when none is configured. */
    scannerDb: Db | null
  }
}

/** Opens the optional scanner database lazily (the pool connects on first use, so a down scanner never blocks the start). */
export default fp(async (fastify) => {
  const options = scannerConnection(fastify.config)
  // An unreachable scanner must not hold a gym search for the default 10 s: its fallback is the answer.
  fastify.decorate('scannerDb', options === null ? null : createDb(fastify.pools.open('scanner', { ...options, connectionLimit: 5, acquireTimeoutMs: 3000 })))
}, { name: 'scanner-db', fastify: '5.x', dependencies: ['config', 'pools'] })
