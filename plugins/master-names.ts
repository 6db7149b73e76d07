import type { FastifyInstance } from 'fastify'
import { EngineError } from './engine.js'
import { ERRORS } from './errors.js'
import { decoratorPlugin } from './decorator-plugin.js'
import { fetchJson } from '../lib/fetch-json.js'

/** The master file changes with game updates, a few times a month: a day is fresh enough. */
const MASTERFILE_TTL_MS = 24 * 3_600_000
/** After a failed download, how long before it is tried again (the last good copy is served meanwhile). */
const RETRY_MS = 5 * 60_000
const TIMEOUT_MS = 30_000
/** Locale codes as the engine takes them (en, de, pt-BR); anything else means English. */
const LOCALE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$/

export type Names = Record<string, string>
interface Masterfile { pokemon: Names, moves: Names, items: Names }

export const namesUnavailable = () => new ERRORS.GameDataUnavailable()

/** `{ "1_0": { name } }` or `{ "1": { name } }` → `{ "1": name }`; the first form of a species names it. */
function namesOf (section: unknown): Names {
  const names: Names = {}
  if (typeof section !== 'object' || section === null) return names
  for (const [key, value] of Object.entries(section as Record<string, unknown>)) {
    const id = Number.parseInt(key, 10)
    const name = (value as { name?: unknown } | null)?.name
    if (id > 0 && typeof name === 'string' && name !== '' && names[id] === undefined) names[id] = name
  }
  return names
}

function createMasterNames (fastify: FastifyInstance) {
  const { engine, config, clock, log } = fastify
  let masterfile: { data: Masterfile | null, until: number } = { data: null, until: 0 }
  let loading: Promise<Masterfile | null> | null = null

  async function download (): Promise<Masterfile | null> {
    try {
      const body = await fetchJson({ service: 'Game master file', url: config.MASTERFILE_URL, timeoutMs: TIMEOUT_MS, maxBytes: config.UPSTREAM_MAX_BYTES }) as Record<string, unknown>
      const data = { pokemon: namesOf(body.monsters), moves: namesOf(body.moves), items: namesOf(body.items) }
      if (Object.keys(data.pokemon).length === 0) throw new Error('no pokemon in it')
      masterfile = { data, until: clock.now() + MASTERFILE_TTL_MS }
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'game master file download failed; keeping the last good copy')
      masterfile = { data: masterfile.data, until: clock.now() + RETRY_MS }
    }
    return masterfile.data
  }

  /** The English names, downloaded on first use and daily after; concurrent callers share one download. */
  async function english (): Promise<Masterfile> {
    if (masterfile.until > clock.now() && masterfile.data !== null) return masterfile.data
    const data = masterfile.until > clock.now() ? masterfile.data : await (loading ??= download().finally(() => { loading = null }))
    if (data === null) throw namesUnavailable()
    return data
  }

  const section = (key: keyof Masterfile) => async (): Promise<Names> => (await english())[key]

  return {
    /**
     * Pokemon names in `locale` from the engine's localized game data; an unusable locale is English,
     * and when the engine cannot answer, the master file's English names stand in.
     */
    async pokemon (locale: string | undefined): Promise<Names> {
      const asked = locale !== undefined && LOCALE.test(locale) ? locale : 'en'
      try {
        const names = namesOf(await engine.masterdata.monsters(asked))
        if (Object.keys(names).length > 0) return names
      } catch (err) {
        log.warn({ kind: err instanceof EngineError ? err.kind : 'unknown' }, 'localized pokemon names unavailable from the alarm engine; using English')
      }
      return section('pokemon')()
    },
    /** Move and item names exist in English only: every locale falls back to it. */
    moves: section('moves'),
    items: section('items')
  }
}

export type MasterNames = ReturnType<typeof createMasterNames>

declare module 'fastify' {
  interface FastifyInstance {
    masterNames: MasterNames
  }
}

/** Names of pokemon, moves and items by id, for the pickers and alarm cards. */
export default decoratorPlugin('master-names', createMasterNames, ['config', 'clock', 'engine'])
