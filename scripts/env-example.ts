import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { resolve } from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import { ConfigSchema, JWT_SECRET_PLACEHOLDER } from '../plugins/base/config.js'

/** Groups of `.env.example`, by the first prefix that matches a variable name. */
const GROUPS: Array<[string, RegExp]> = [
  ['Service database (this service\'s own tables; created and migrated at start-up)', /^WEB_DB_/],
  ['Alarm engine database (owned by the engine; used only for the operations the engine API lacks)', /^DB_/],
  ['Scanner database (optional, read-only)', /^SCANNER_DB_/],
  ['Alarm engine API', /^(PORACLE_|ENGINE_)/],
  ['Internal JWT', /^JWT_/],
  ['External OIDC sign-in', /^(OIDC_|AUTH_FORCE_LOCAL)/],
  ['Chat platform (Discord) sign-in', /^DISCORD_/],
  ['Telegram sign-in', /^TELEGRAM_/],
  ['Geofences and optional APIs', /^(KOJI_|GEOFENCE_|GOLBAT_)/],
  ['Web Push (docs/push.md)', /^(VAPID_|PUSH_|SCANNER_WEBHOOK_)/],
  ['Server', /./]
]

const REQUIRED_HINTS: Record<string, string> = {
  JWT_SECRET: JWT_SECRET_PLACEHOLDER,
  CORS_ORIGIN: 'https://alarms.example.org',
  PORACLE_API_ADDRESS: 'http://poracle:3030'
}

function example (key: string, schema: TSchema): string {
  if (key in REQUIRED_HINTS) return REQUIRED_HINTS[key] as string
  if (schema.default === undefined) return ''
  return Array.isArray(schema.default) ? schema.default.join(',') : String(schema.default)
}

/** Renders `.env.example` from the configuration schema, so it can never miss a variable. */
export function renderEnvExample (): string {
  const sections = new Map<string, string[]>(GROUPS.map(([title]) => [title, []]))
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[string, TSchema]>) {
    const [title] = GROUPS.find(([, pattern]) => pattern.test(key)) as [string, RegExp]
    const alias = (schema as { alias?: string[] }).alias
    const also = alias && alias.length > 0 ? ` (also ${alias.join(', ')})` : ''
    sections.get(title)?.push(`# ${schema.description as string}${also}`, `${key}=${example(key, schema)}`, '')
  }
  const header = [
    '# alarm-web configuration. Copy to .env; real environment variables win over this file.',
    '# Names shown as "also" are the hierarchical equivalents (Oidc__ClientId for OIDC_CLIENT_ID); the .env name wins when both are set.',
    '# Booleans: true/false/1/0. An empty value means "use the default" (except OIDC_OFFLINE_ACCESS_SCOPE).',
    ''
  ]
  const body = [...sections].filter(([, lines]) => lines.length > 0).flatMap(([title, lines]) => [`# ---- ${title}`, '', ...lines])
  return [...header, ...body].join('\n').replace(/\n+$/, '\n')
}

const cell = (value: string) => value.replace(/\|/g, '\\|')

/** The README's configuration table, from the same schema. */
export function renderConfigTable (): string {
  const rows = ['| Variable | Also read as | Default | Meaning |', '|---|---|---|---|']
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[string, TSchema]>) {
    const alias = (schema as { alias?: string[] }).alias ?? []
    const fallback = schema.default === undefined || schema.default === '' || (Array.isArray(schema.default) && schema.default.length === 0)
      ? ''
      : `\`${Array.isArray(schema.default) ? schema.default.join(',') : String(schema.default)}\``
    rows.push(`| \`${key}\` | ${alias.map((a) => `\`${a}\``).join(', ')} | ${fallback} | ${cell(schema.description as string)} |`)
  }
  return rows.join('\n')
}

const START = '<!-- config-table:start -->'
const END = '<!-- config-table:end -->'

/** README.md with its configuration table replaced by the current one. */
export function withConfigTable (readme: string): string {
  const from = readme.indexOf(START)
  const to = readme.indexOf(END)
  if (from === -1 || to === -1) throw new Error('README.md lacks the config-table markers')
  return `${readme.slice(0, from + START.length)}\n${renderConfigTable()}\n${readme.slice(to)}`
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '../..')
  writeFileSync(resolve(root, '.env.example'), renderEnvExample())
  const readme = resolve(root, 'README.md')
  writeFileSync(readme, withConfigTable(readFileSync(readme, 'utf8')))
}
