import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEnv } from 'node:util'
import fp from 'fastify-plugin'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConfigSchema, type Config, type ConfigKey } from '../../schemas/config.js'

/** The schema lives in `schemas/config.ts`, where the libraries that read settings can import its type. */
export { ConfigSchema, type Config, type ConfigKey }

/** Extra, non-aliased names: `Cors__AllowedOrigins__0..N` (the .NET array binding form). */
const INDEXED_ALIASES: Partial<Record<ConfigKey, string>> = { CORS_ORIGIN: 'Cors__AllowedOrigins' }

export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

interface Meta { alias?: string[], secret?: boolean, emptyIsValue?: boolean }
const meta = (schema: TSchema): Meta => schema as Meta

function rawValue (env: Env, key: string, schema: TSchema): string | undefined {
  const { emptyIsValue } = meta(schema)
  for (const name of [key, ...(meta(schema).alias ?? [])]) {
    const value = env[name]
    if (value === undefined) continue
    if (value.trim() === '' && !emptyIsValue) continue
    return value
  }
  const indexed = INDEXED_ALIASES[key as ConfigKey]
  if (indexed) {
    const items: string[] = []
    for (let i = 0; env[`${indexed}__${i}`] !== undefined; i++) items.push(env[`${indexed}__${i}`] as string)
    if (items.length > 0) return items.join(',')
  }
  return undefined
}

function parseValue (key: string, raw: string, schema: TSchema, problems: string[]): unknown {
  const value = raw.trim()
  if (schema.type === 'boolean') {
    const lower = value.toLowerCase()
    if (lower === 'true' || lower === '1') return true
    if (lower === 'false' || lower === '0') return false
    problems.push(`${key} must be true, false, 1 or 0 (got "${value}")`)
    return undefined
  }
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(value)) {
      problems.push(`${key} must be a whole number (got "${value}")`)
      return undefined
    }
    const n = Number(value)
    if (schema.minimum !== undefined && n < schema.minimum) problems.push(`${key} must be at least ${schema.minimum as number}`)
    else if (schema.maximum !== undefined && n > schema.maximum) problems.push(`${key} must be at most ${schema.maximum as number}`)
    return n
  }
  if (schema.type === 'array') return value.split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (schema.anyOf) {
    const allowed = (schema.anyOf as TSchema[]).map((s) => s.const as string)
    if (!allowed.includes(value)) problems.push(`${key} must be one of ${allowed.join(', ')} (got "${value}")`)
    return value
  }
  return value
}

function isOrigin (value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && value.replace(/\/$/, '') === url.origin
  } catch {
    return false
  }
}

/**
 * The CSP img-src entry that admits the tiles of a tile URL template and nothing else of the web: its
 * origin, with a `{s}` subdomain placeholder widened to a wildcard (`https://*.tile.example.org`).
 * Undefined when the template is not an absolute http(s) URL.
 */
export function tileImageSource (template: string): string | undefined {
  try {
    const url = new URL(template.replaceAll('{s}', 'tile-subdomain').replace(/\{[a-z]+\}/g, '0'))
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    return url.origin.replace('tile-subdomain', '*')
  } catch {
    return undefined
  }
}

/** The placeholder `.env.example` shows for JWT_SECRET: public, so never a usable secret. */
export const JWT_SECRET_PLACEHOLDER = 'change-me-to-at-least-32-random-characters'

/** The nearest folder with a package.json: the same answer from `plugins/` and from `dist/plugins/`. */
function projectRoot (): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return dir
}

let publishedText: string | undefined
/**
 * The project's published texts (README, docs/, .env.example) where they ship with the code (a source
 * checkout; the container image carries none of them): any value found there is public.
 */
function published (): string {
  if (publishedText !== undefined) return publishedText
  const root = projectRoot()
  const files = root === undefined
    ? []
    : [join(root, 'README.md'), join(root, '.env.example'),
        ...(existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f)) : [])]
  publishedText = files.filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8')).join('\n')
  return publishedText
}

/**
 * Placeholder-looking values ("change-me…", "your-secret-here", "replace with…", "example"), in any
 * case and with anything around them: an operator who edits the example a little still has a public value.
 */
const PLACEHOLDER = /change[\s_-]*me|replace[\s_-]*(?:me|with|this)|your[\s_-]*(?:own[\s_-]*)?(?:secret|key|token)|(?:secret|key)[\s_-]*here|placeholder|example|xxxxxx/i

/** Short values are refused by the other rules; searching the docs for them would only find words. */
const isPublished = (value: string): boolean =>
  PLACEHOLDER.test(value) || value.toLowerCase().includes(JWT_SECRET_PLACEHOLDER) ||
  (value.length >= 16 && published().toLowerCase().includes(value.toLowerCase()))

/**
 * Why a secret is too weak to sign or encrypt with, or null. Refused: a published value, one repeated
 * character, fewer than 8 different characters, or fewer than `minimum` entropy-bearing characters (a
 * character that repeats the one before it bears none).
 */
export function weakSecretReason (value: string | Buffer, minimum: number): string | null {
  const units = typeof value === 'string' ? [...value] : [...value].map(String)
  if (typeof value === 'string' && isPublished(value)) return 'is a value published with this project (an example or placeholder)'
  if (units.every((u) => u === units[0])) return 'is one repeated character'
  if (new Set(units).size < 8) return 'uses fewer than 8 different characters'
  const bearing = units.filter((u, i) => i === 0 || u !== units[i - 1]).length
  if (bearing < minimum) return `has fewer than ${minimum} entropy-bearing characters`
  return null
}

/** Rules that span variables or need more than a type. */
function crossCheck (config: Config, problems: string[]): void {
  const jwtWeakness = config.JWT_SECRET === '' ? 'is required' : weakSecretReason(config.JWT_SECRET, 32)
  if (jwtWeakness !== null) {
    problems.push(`JWT_SECRET ${jwtWeakness}: anyone who knows it can sign in as any user, admins included. Generate one with: openssl rand -base64 48`)
  }
  if (config.NODE_ENV !== 'development' && config.CORS_ORIGIN.length === 0) {
    problems.push('CORS_ORIGIN is required when NODE_ENV is not development (the browser origin of this site, e.g. https://alarms.example.org)')
  }
  for (const origin of config.CORS_ORIGIN) {
    if (!isOrigin(origin)) problems.push(`CORS_ORIGIN entry "${origin}" must be an http(s) origin without a path`)
  }
  if (config.PUBLIC_URL !== undefined && !isOrigin(config.PUBLIC_URL)) {
    problems.push('PUBLIC_URL must be an absolute http(s) origin without path, query or fragment (e.g. https://alarms.example.org)')
  }
  for (const key of ['OIDC_AUTHORIZATION_URL', 'OIDC_TOKEN_URL', 'OIDC_USERINFO_URL', 'OIDC_END_SESSION_URL', 'OIDC_REVOCATION_URL', 'PORACLE_API_ADDRESS', 'DISCORD_API_URL', 'KOJI_API_ADDRESS', 'GOLBAT_API_ADDRESS'] as const) {
    const value = config[key]
    if (value === '') continue
    try {
      const url = new URL(value)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${key} must be an http(s) URL`)
    } catch {
      problems.push(`${key} must be an absolute URL (got "${value}")`)
    }
  }
  if (tileImageSource(config.MAP_TILE_URL) === undefined) {
    problems.push(`MAP_TILE_URL must be an absolute http(s) URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png (got "${config.MAP_TILE_URL}")`)
  }
  if (config.OIDC_TOKEN_ENCRYPTION_KEY !== '') {
    const key = Buffer.from(config.OIDC_TOKEN_ENCRYPTION_KEY, 'base64')
    const weakness = key.length !== 32
      ? 'must be 32 bytes, base64-encoded'
      : isPublished(config.OIDC_TOKEN_ENCRYPTION_KEY) ? weakSecretReason(config.OIDC_TOKEN_ENCRYPTION_KEY, 0) : weakSecretReason(key, 0)
    if (weakness !== null) problems.push(`OIDC_TOKEN_ENCRYPTION_KEY ${weakness}. Generate one with: openssl rand -base64 32`)
  }
  config.OIDC_TOKEN_RETIRED_KEYS.forEach((value, i) => {
    if (Buffer.from(value, 'base64').length !== 32) problems.push(`OIDC_TOKEN_RETIRED_KEYS entry ${i + 1} must be 32 bytes, base64-encoded`)
  })
  vapidProblems(config, problems)
}

/**
 * Web Push's VAPID values: the key pair both or neither (neither: the service makes one and keeps it in
 * its database), each well formed; the subject defaults to the site's https origin (loadConfig), and a
 * site with a push source but no https origin must name one.
 */
function vapidProblems (config: Config, problems: string[]): void {
  const pair = { VAPID_PUBLIC_KEY: config.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: config.VAPID_PRIVATE_KEY }
  const set = Object.entries(pair).filter(([, value]) => value !== '')
  if (set.length === 1) {
    problems.push(`Web Push needs VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY together (only ${set.map(([key]) => key).join(', ')} set); leave both unset to have the service make a pair. Generate keys with: npx web-push generate-vapid-keys`)
  }
  const base64url = /^[A-Za-z0-9_-]+$/
  if (set.length === 2) {
    if (!base64url.test(pair.VAPID_PUBLIC_KEY) || Buffer.from(pair.VAPID_PUBLIC_KEY, 'base64url').length !== 65) problems.push('VAPID_PUBLIC_KEY must be a 65-byte P-256 public key, base64url-encoded')
    if (!base64url.test(pair.VAPID_PRIVATE_KEY) || Buffer.from(pair.VAPID_PRIVATE_KEY, 'base64url').length !== 32) problems.push('VAPID_PRIVATE_KEY must be a 32-byte P-256 private key, base64url-encoded')
  }
  if (config.VAPID_SUBJECT !== '' && !/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(config.VAPID_SUBJECT)) problems.push('VAPID_SUBJECT must be a mailto: address or an https: URL')
  if (config.VAPID_SUBJECT === '' && (config.SCANNER_WEBHOOK_TOKEN !== '' || config.PUSH_VALIDATION_TOKEN !== '')) {
    problems.push('Web Push needs VAPID_SUBJECT (a mailto: address or an https: URL the push services may reach you at): this site has no https PUBLIC_URL or CORS_ORIGIN to use instead')
  }
}

/**
 * Builds the configuration from an environment-like record. Throws one ConfigError naming every bad
 * variable, so an operator fixes them all in one go.
 */
export function loadConfig (env: Env): Config {
  const problems: string[] = []
  const values: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[string, TSchema]>) {
    const raw = rawValue(env, key, schema)
    if (raw !== undefined) values[key] = parseValue(key, raw, schema, problems)
    else if (schema.default !== undefined) values[key] = structuredClone(schema.default)
  }
  const config = values as Config
  if (config.OIDC_ENABLED === undefined) {
    config.OIDC_ENABLED = [config.OIDC_CLIENT_ID, config.OIDC_AUTHORIZATION_URL, config.OIDC_TOKEN_URL, config.OIDC_USERINFO_URL].every((v) => v !== '')
  }
  if (config.TELEGRAM_ENABLED === undefined) {
    config.TELEGRAM_ENABLED = config.TELEGRAM_BOT_TOKEN !== '' && config.TELEGRAM_BOT_USERNAME !== ''
  }
  if (config.PUBLIC_URL !== undefined) config.PUBLIC_URL = config.PUBLIC_URL.replace(/\/$/, '')
  config.CORS_ORIGIN = config.CORS_ORIGIN.map((o) => o.replace(/\/$/, ''))
  if (config.VAPID_SUBJECT === '') config.VAPID_SUBJECT = [config.PUBLIC_URL, config.CORS_ORIGIN[0]].find((o) => o?.startsWith('https://') === true) ?? ''
  if (problems.length === 0) crossCheck(config, problems)
  if (problems.length === 0 && !Value.Check(ConfigSchema, config)) {
    for (const error of Value.Errors(ConfigSchema, config)) problems.push(`${error.path.slice(1)} ${error.message}`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

/** The variables of a `.env` file (Node's own parser), or none when there is no file; real environment variables win over it. */
export function readDotEnv (path = resolve(process.cwd(), '.env')): Env {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return {}
  }
  return parseEnv(text) as Env
}

export function configFromProcess (): Config {
  return loadConfig({ ...readDotEnv(), ...process.env })
}

/** Masks a secret for display: that it is set, never any part of it. */
export function mask (value: string): string {
  return value === '' ? '' : '••••••••'
}

/** Identifiers that are not secrets but need not be shown whole: the ends stay recognisable. */
export function maskPartly (value: string): string {
  if (value === '') return ''
  return value.length > 8 ? `${value.slice(0, 4)}••••••••${value.slice(-4)}` : '••••••••'
}

/** The start-up summary: every variable that differs from its default, secrets masked. */
export function summarize (config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[ConfigKey, TSchema]>) {
    const value = config[key]
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue
    out[key] = meta(schema).secret ? mask(String(value)) : value
  }
  return out
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

export default fp<{ config: Config }>(async (fastify, opts) => {
  fastify.decorate('config', opts.config)
}, { name: 'config', fastify: '5.x' })
