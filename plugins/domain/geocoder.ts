import type { FastifyInstance } from 'fastify'
import { EngineError } from '../data/engine.js'
import { ERRORS, peerFault } from '../edge/errors.js'
import { CircuitBreaker } from '../../lib/circuit-breaker.js'
import { fetchJson, UpstreamError } from '../../lib/fetch-json.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import type { AddressMatch, AddressName } from '../../schemas/location.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** How long the engine's geocoder URL is trusted: the engine's configuration changes only with a restart. */
const PROVIDER_TTL_MS = 5 * 60_000
/** Answers are kept briefly: a second identical search (another tab, a retyped query) asks nobody. */
const RESULT_TTL_MS = 10 * 60_000
const RESULTS_MAX = 1_000
/** After the geocoder did not answer, searches fail at once for this long, and clients are told so. */
const BREAKER_SECONDS = 30
/** The longest label passed on: Nominatim's display names are a few hundred characters at most. */
const LABEL_MAX = 300
/** Control and bidirectional-override characters, which would make a label display as something else. */
const UNSAFE_TEXT = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu

export const geocoderMissing = () => new ERRORS.GeocoderMissing()
export const geocoderUnavailable = () =>
  Object.assign(new ERRORS.GeocoderUnavailable(), { headers: { 'retry-after': String(BREAKER_SECONDS) } })

interface Provider { base: string | null, locale: string }

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The engine's `providerURL` as a base to append `/search` to, or null when it is empty or not http(s). */
function providerBase (url: string | null): string | null {
  if (url === null || url.trim() === '') return null
  try {
    const parsed = new URL(url.trim())
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href.replace(/\/+$/, '') : null
  } catch {
    return null
  }
}

function label (value: unknown): string | null {
  if (typeof value !== 'string') return null
  const text = value.replace(UNSAFE_TEXT, ' ').replace(/\s+/gu, ' ').trim().slice(0, LABEL_MAX)
  return text === '' ? null : text
}

/** Nominatim sends coordinates as strings; anything that is not a number in range is dropped. */
function coordinate (value: unknown, limit: number): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= limit ? n : null
}

/** A search answer (an array of places) reduced to what the client shows; not an array is garbage. */
function matches (answer: unknown): AddressMatch[] {
  if (!Array.isArray(answer)) throw new UpstreamError('Geocoder', 'invalid')
  const found: AddressMatch[] = []
  for (const place of answer) {
    if (!isObject(place)) continue
    const name = label(place.display_name)
    const lat = coordinate(place.lat, 90)
    const lon = coordinate(place.lon, 180)
    if (name !== null && lat !== null && lon !== null) found.push({ label: name, lat, lon })
  }
  return found
}

/** A reverse answer: a place, or Nominatim's `{ error }` where there is nothing (the open sea). */
function nameOf (answer: unknown): AddressName {
  if (!isObject(answer)) throw new UpstreamError('Geocoder', 'invalid')
  const name = label(answer.display_name)
  if (name === null && answer.error === undefined) throw new UpstreamError('Geocoder', 'invalid')
  return { label: name }
}

function createGeocoder (fastify: FastifyInstance) {
  const { config, clock, engine, featureGates, log } = fastify
  const provider = new TtlCache<'provider', Provider>(clock, 1)
  const answers = new TtlCache<string, AddressMatch[] | AddressName>(clock, RESULTS_MAX)
  const breaker = new CircuitBreaker(clock, BREAKER_SECONDS * 1000)
  // Nominatim's usage policy asks for a User-Agent that names the application and how to reach it.
  const userAgent = `alarm-web/${config.BUILD_VERSION}${config.PUBLIC_URL !== undefined ? ` (+${config.PUBLIC_URL})` : ''}`

  /** The geocoder the engine names; an engine that cannot be asked makes the search unavailable, not broken. */
  async function settings (): Promise<Provider> {
    return provider.getOrLoad('provider', async () => {
      try {
        const engineConfig = await engine.config.poracleWeb()
        return { value: { base: providerBase(engineConfig.providerUrl), locale: engineConfig.locale ?? 'en' }, ttlMs: PROVIDER_TTL_MS }
      } catch (err) {
        if (!(err instanceof EngineError)) throw err
        // The engine's own fault status (503, 504 or 502): the search depends on the engine here.
        log.warn({ kind: err.kind }, 'alarm engine configuration unavailable; address search fails with the engine\'s fault')
        throw err
      }
    })
  }

  async function enabledBase (): Promise<Provider & { base: string }> {
    const current = await settings()
    if (current.base === null) throw geocoderMissing()
    return { ...current, base: current.base }
  }

  /**
   * One call to the geocoder; a failure's message and log line name no URL. No connection (or the
   * breaker open) is a 503 with retry-after, too slow a 504, an error status or unusable answer a 502.
   */
  async function call (url: string, language: string): Promise<unknown> {
    if (!breaker.allow()) throw geocoderUnavailable()
    try {
      const answer = await fetchJson({ service: 'Geocoder', url, timeoutMs: config.GEOCODER_TIMEOUT_MS, maxBytes: config.UPSTREAM_MAX_BYTES, headers: { 'user-agent': userAgent, 'accept-language': language } })
      breaker.succeeded()
      return answer
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err
      if (err.reason === 'timeout' || err.reason === 'unreachable') breaker.failed()
      else breaker.succeeded()
      log.warn({ reason: err.message }, 'geocoder call failed')
      throw err.reason === 'unreachable' ? geocoderUnavailable() : peerFault('Geocoder', err.reason)
    }
  }

  /** Loads through the answer cache; a reply the parser refuses is a 502 and is not kept. */
  async function cached<T extends AddressMatch[] | AddressName> (key: string, url: string, language: string, parse: (answer: unknown) => T): Promise<T> {
    return await answers.getOrLoad(key, async () => {
      const answer = await call(url, language)
      try {
        return { value: parse(answer), ttlMs: RESULT_TTL_MS }
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err
        log.warn({ reason: err.message }, 'geocoder answer unusable')
        throw peerFault('Geocoder', 'invalid')
      }
    }) as T
  }

  return {
    /** Whether the client should offer address search: the site has not switched it off and the engine names a geocoder. */
    async available (): Promise<boolean> {
      if (await featureGates.isDisabled('disable_nominatim')) return false
      try {
        return (await settings()).base !== null
      } catch {
        return false
      }
    },

    /** Up to five places for an address; `language` is a locale tag, else the engine's locale. */
    async search (query: string, language?: string): Promise<AddressMatch[]> {
      const { base, locale } = await enabledBase()
      const lang = language ?? locale
      const params = new URLSearchParams({ addressdetails: '1', q: query, format: 'json', limit: '5' })
      return await cached(`search\n${base}\n${lang}\n${query.toLowerCase()}`, `${base}/search?${params.toString()}`, lang, matches)
    },

    /** The address at a point, or a null label where the geocoder knows nothing there. */
    async reverse (lat: number, lon: number, language?: string): Promise<AddressName> {
      const { base, locale } = await enabledBase()
      const lang = language ?? locale
      // The pin is stored with six decimals (about 0.1 m): finer keys would only miss the cache.
      const [la, lo] = [lat.toFixed(6), lon.toFixed(6)]
      const params = new URLSearchParams({ lat: la, lon: lo, format: 'json', addressdetails: '1' })
      return await cached(`reverse\n${base}\n${lang}\n${la},${lo}`, `${base}/reverse?${params.toString()}`, lang, nameOf)
    }
  }
}

export type Geocoder = ReturnType<typeof createGeocoder>

declare module 'fastify' {
  interface FastifyInstance {
    geocoder: Geocoder
  }
}

/**
 * Address search and reverse lookup at the geocoder (Nominatim) the alarm engine's configuration names
 * (`providerURL`), switched off by the site setting `disable_nominatim`. Answers are reduced to labels and
 * coordinates, kept ten minutes, and the geocoder's address never reaches an answer or a log line.
 */
export default decoratorPlugin('geocoder', createGeocoder, ['config', 'clock', 'engine', 'feature-gates'])
