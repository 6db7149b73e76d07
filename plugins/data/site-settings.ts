import { asc, eq } from 'drizzle-orm'
import type { FastifyRequest } from 'fastify'
import { siteSettings } from '../../db/schema/service.js'
import { ACCENT_COLOR_PATTERN, BRANDING_TEXT_MAX, ICON_SET_KEYS } from '../../schemas/settings.js'
import { badRequest } from '../edge/errors.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

const CACHE_TTL_MS = 5 * 60_000
/** Keys remembered at most: the known keys are a few dozen, unknown ones must not grow it. */
const CACHE_MAX_KEYS = 1000

export interface SiteSetting {
  id: number
  category: string
  key: string
  value: string | null
  valueType: string
}

export interface SettingWrite {
  value: string | null
  category?: string
  valueType?: string
  /** Set by the admin when a guard asks for confirmation (e.g. switching the site to SSO). */
  confirm?: boolean
}

/**
 * A guard runs before a write of its key and throws an error of the catalogue (400, 409, ...) to refuse it.
 * Concerns register their own: the OIDC concern guards `enable_oidc`, the chat-platform concern guards
 * "not both logins off".
 */
export type SettingGuard = (write: SettingWrite, request: FastifyRequest) => Promise<void> | void

/** Keys whose value is computed or internal bookkeeping: never written through the API. */
export const READ_ONLY_KEYS = new Set(['migration_completed', 'quick_picks_seeded', 'poracle_locale', 'vapid_keys'])
/** Keys no one sees through the API (`vapid_keys` holds the Web Push private key). */
export const HIDDEN_KEYS = new Set(['migration_completed', 'vapid_keys'])

/** What non-admins may read: branding plus every feature switch. */
const PUBLIC_KEYS = new Set(['allowed_languages', 'custom_title', 'favicon_url', 'header_logo_url', 'hide_header_logo',
  'signup_url', 'site_name', 'custom_page_name', 'custom_page_url', 'custom_page_icon', 'poracle_locale', 'accent_color'])
const PUBLIC_PREFIXES = ['disable_', 'enable_', 'uicons_']
export const isVisibleToUsers = (key: string) => PUBLIC_KEYS.has(key) || PUBLIC_PREFIXES.some((p) => key.startsWith(p))

/**
 * What the anonymous login page may read: the reference's list plus the rest of the branding (site name,
 * logo, accent colour), so that the login page looks like the site it signs in to (docs/decisions.md).
 */
export const ANONYMOUS_KEYS = ['accent_color', 'allowed_languages', 'custom_title', 'enable_discord', 'enable_telegram', 'favicon_url',
  'header_logo_url', 'hide_header_logo', 'signup_url', 'site_name']

/**
 * Why an image address is refused, or null when it is fine: an https URL without credentials, or a path
 * on this site. Anything else (javascript:, data:, plain http, protocol-relative `//host`, backslashes
 * that browsers read as slashes) would load from somewhere the admin did not mean or not at all.
 */
function imageUrlProblem (value: string): string | null {
  if (value.length > 2048) return 'is longer than 2048 characters'
  if (/[\\\s]/.test(value)) return 'must not contain spaces or backslashes'
  if (value.startsWith('/')) return value.startsWith('//') ? 'must be an https:// address or a path on this site such as /logo.png' : null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an https:// address or a path on this site such as /logo.png'
  }
  if (url.protocol !== 'https:') return 'must be an https:// address or a path on this site such as /logo.png'
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password'
  return null
}

/** Why a name shown in the top bar or the browser tab is refused, or null. */
function brandingTextProblem (value: string): string | null {
  if (/[\r\n\t]/.test(value)) return 'must be one line'
  if ([...value].length > BRANDING_TEXT_MAX) return `is longer than ${BRANDING_TEXT_MAX} characters`
  return null
}

/** A language code as the client and the engine write them: `de`, `pt-BR`, `zh-Hant`. */
const LANGUAGE_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/

/** Why a comma-separated language list is refused, or null. */
function languageListProblem (value: string): string | null {
  const codes = value.split(',').map((code) => code.trim())
  const bad = codes.find((code) => !LANGUAGE_CODE.test(code))
  if (bad !== undefined) return `lists "${bad.slice(0, 20)}", which is not a language code such as en or pt-BR`
  if (new Set(codes).size !== codes.length) return 'lists a language twice'
  return codes.length > 50 ? 'lists more than 50 languages' : null
}

/** The profiles a member may have at most, unless the site sets `max_profiles_per_user`. */
export const DEFAULT_MAX_PROFILES = 10
export const MAX_PROFILES_KEY = 'max_profiles_per_user'

/** Why a profile cap is refused, or null: a whole number from 1 to 100. */
function profileCapProblem (value: string): string | null {
  return /^[1-9][0-9]?$|^100$/.test(value) ? null : 'must be a whole number from 1 to 100'
}

/** A short mark shown before the custom page's link (an emoji or a few letters). */
function iconTextProblem (value: string): string | null {
  if (/[\r\n\t]/.test(value)) return 'must be one line'
  return [...value].length > 8 ? 'is longer than 8 characters' : null
}

/**
 * The values the client puts into the page (text, link and image addresses, a CSS colour, the language
 * list): checked on write, so a stored value is always safe to use. Null or empty clears a key.
 */
const VALUE_RULES: Record<string, (value: string) => string | null> = {
  site_name: brandingTextProblem,
  custom_title: brandingTextProblem,
  header_logo_url: imageUrlProblem,
  favicon_url: imageUrlProblem,
  accent_color: (value) => ACCENT_COLOR_PATTERN.test(value) ? null : 'must be a colour written #rrggbb, for example #1d4ed8',
  signup_url: imageUrlProblem,
  custom_page_url: imageUrlProblem,
  custom_page_name: brandingTextProblem,
  custom_page_icon: iconTextProblem,
  allowed_languages: languageListProblem,
  [MAX_PROFILES_KEY]: profileCapProblem,
  ...Object.fromEntries(ICON_SET_KEYS.map((key) => [key, imageUrlProblem]))
}

/** Switches (`disable_*`, `enable_*`, `hide_header_logo`) hold "true" or "false"; anything else would read as off. */
const isSwitch = (key: string): boolean => key === 'hide_header_logo' || key.startsWith('disable_') || key.startsWith('enable_')

function createSiteSettings (fastify: import('fastify').FastifyInstance) {
  const { db, clock } = fastify
  const cache = new TtlCache<string, string | null>(clock, CACHE_MAX_KEYS)
  const guards = new Map<string, SettingGuard>()
  for (const [key, problem] of Object.entries(VALUE_RULES)) {
    guards.set(key, (write) => {
      const found = write.value === null || write.value === '' ? null : problem(write.value)
      if (found !== null) throw badRequest(`The setting ${key} ${found}.`, { details: [{ field: '/value', message: found }] })
    })
  }

  async function get (key: string): Promise<string | undefined> {
    const value = await cache.getOrLoad(key, async () => {
      const [row] = await db.db.select({ value: siteSettings.value }).from(siteSettings).where(eq(siteSettings.key, key))
      return { value: row?.value ?? null, ttlMs: CACHE_TTL_MS }
    })
    return value ?? undefined
  }

  async function upsert (key: string, write: SettingWrite): Promise<void> {
    const insert = { key, value: write.value, category: write.category ?? 'general', valueType: write.valueType ?? 'string' }
    await db.db.insert(siteSettings).values(insert).onDuplicateKeyUpdate({
      set: {
        value: write.value,
        ...(write.category !== undefined ? { category: write.category } : {}),
        ...(write.valueType !== undefined ? { valueType: write.valueType } : {})
      }
    })
    cache.delete(key)
  }

  return {
    get,

    /** Only the exact string "true" turns a switch on; absent, null or anything else is off. */
    async isTrue (key: string): Promise<boolean> {
      return (await get(key)) === 'true'
    },

    /** For switches that default to on: only the exact string "false" turns them off. */
    async isNotFalse (key: string): Promise<boolean> {
      return (await get(key)) !== 'false'
    },

    async list (): Promise<SiteSetting[]> {
      return db.db.select().from(siteSettings).orderBy(asc(siteSettings.key))
    },

    guard (key: string, check: SettingGuard): void {
      if (guards.has(key)) throw new Error(`a guard for site setting ${key} is already registered`)
      guards.set(key, check)
    },

    /** Runs the key's guard, then upserts; category and value type are kept when omitted. */
    async set (key: string, write: SettingWrite, request: FastifyRequest): Promise<SiteSetting> {
      if (isSwitch(key) && write.value !== null && write.value !== 'true' && write.value !== 'false') {
        throw badRequest(`The setting ${key} is a switch: its value is "true", "false" or null.`, { details: [{ field: '/value', message: 'must be "true", "false" or null' }] })
      }
      await guards.get(key)?.(write, request)
      await upsert(key, write)
      const [row] = await db.db.select().from(siteSettings).where(eq(siteSettings.key, key))
      return row as SiteSetting
    },

    /** Records a flag the service keeps for itself (category `internal`, read-only to admins): no request, no guard. */
    async mark (key: string, value: string): Promise<void> {
      await upsert(key, { value, category: 'internal' })
    },

    /**
     * Stores `value` (category `internal`) unless the key holds one already, and answers the value kept:
     * instances starting together each offer theirs and all use the first one written.
     */
    async keepFirst (key: string, value: string): Promise<string> {
      await db.db.insert(siteSettings).values({ key, value, category: 'internal', valueType: 'json' }).onDuplicateKeyUpdate({ set: { key } })
      cache.delete(key)
      const [row] = await db.db.select({ value: siteSettings.value }).from(siteSettings).where(eq(siteSettings.key, key))
      return row?.value ?? value
    },

    evict (key?: string): void {
      if (key === undefined) cache.clear()
      else cache.delete(key)
    }
  }
}

export type SiteSettings = ReturnType<typeof createSiteSettings>

declare module 'fastify' {
  interface FastifyInstance {
    siteSettings: SiteSettings
  }
}

/** Runtime settings an admin edits (table `site_settings`), read through a 5-minute per-key cache. */
export default decoratorPlugin('site-settings', createSiteSettings, ['db', 'clock'])
