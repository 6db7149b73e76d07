import type { FastifyInstance } from 'fastify'
import { fetchJson } from '../../lib/fetch-json.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

const TTL_MS = 5 * 60_000

export interface Availability {
  enabled: boolean
  available: number[]
}

/** Golbat answers flat ids, `{ available: [...] }`, or objects with an `id`: all three are read. */
export function availableIds (answer: unknown): number[] {
  const list = Array.isArray(answer)
    ? answer
    : typeof answer === 'object' && answer !== null && Array.isArray((answer as { available?: unknown }).available) ? (answer as { available: unknown[] }).available : null
  if (list === null) throw new Error('unrecognised availability answer')
  const ids = list.map((e) => (typeof e === 'object' && e !== null ? (e as { id?: unknown }).id : e)).map(Number)
  return [...new Set(ids.filter((n) => Number.isInteger(n) && n > 0))].sort((a, b) => a - b)
}

/**
 * Which pokemon are spawning now, from Golbat (GOLBAT_API_ADDRESS and GOLBAT_API_SECRET, both required).
 * Cached five minutes; when Golbat fails the last good list is kept, or none with a warning.
 */
function createPokemonAvailability (fastify: FastifyInstance) {
  const { config, clock, log } = fastify
  const enabled = config.GOLBAT_API_ADDRESS !== '' && config.GOLBAT_API_SECRET !== ''
  const url = `${config.GOLBAT_API_ADDRESS.replace(/\/+$/, '')}/api/pokemon/available`
  const cache = new TtlCache<'ids', number[]>(clock, 1)
  let lastGood: number[] | null = null

  async function load (): Promise<number[]> {
    try {
      const answer = await fetchJson({ service: 'Golbat', url, timeoutMs: config.GOLBAT_TIMEOUT_MS, maxBytes: config.UPSTREAM_MAX_BYTES, headers: { 'x-golbat-secret': config.GOLBAT_API_SECRET } })
      lastGood = availableIds(answer)
    } catch (err) {
      log.warn({ reason: (err as Error).message, lastGood: lastGood !== null }, 'pokemon availability unavailable; serving the last known list')
    }
    return lastGood ?? []
  }

  return {
    enabled,
    async get (): Promise<Availability> {
      if (!enabled) return { enabled: false, available: [] }
      return { enabled: true, available: await cache.getOrLoad('ids', async () => ({ value: await load(), ttlMs: TTL_MS })) }
    }
  }
}

export type PokemonAvailability = ReturnType<typeof createPokemonAvailability>

declare module 'fastify' {
  interface FastifyInstance {
    pokemonAvailability: PokemonAvailability
  }
}

export default decoratorPlugin('pokemon-availability', createPokemonAvailability, ['config', 'clock'])
