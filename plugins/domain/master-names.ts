import type { FastifyInstance } from 'fastify'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** Locale codes as the engine takes them (en, de, pt-BR); anything else means English. */
const LOCALE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$/

export type Names = Record<string, string>

/** `{ "1_0": { name } }` → `{ "1": name }`; the first form of a species names it. */
function namesOf (monsters: Record<string, unknown>): Names {
  const names: Names = {}
  for (const [key, value] of Object.entries(monsters)) {
    const id = Number.parseInt(key, 10)
    const name = (value as { name?: unknown } | null)?.name
    if (id > 0 && typeof name === 'string' && name !== '' && names[id] === undefined) names[id] = name
  }
  return names
}

function createMasterNames (fastify: FastifyInstance) {
  const { gameData } = fastify
  return {
    /**
     * Pokemon names in `locale` from the game data (the engine's localized list, else its last good copy,
     * else the master file's English names); an unusable locale is English.
     */
    async pokemon (locale: string | undefined): Promise<Names> {
      const asked = locale !== undefined && LOCALE.test(locale) ? locale : 'en'
      const names = namesOf(await gameData.monsters(asked))
      return Object.keys(names).length > 0 ? names : await gameData.englishPokemon()
    },
    /** Move and item names exist in English only: every locale falls back to it. */
    moves: gameData.moves,
    items: gameData.items
  }
}

export type MasterNames = ReturnType<typeof createMasterNames>

declare module 'fastify' {
  interface FastifyInstance {
    masterNames: MasterNames
  }
}

/** Names of pokemon, moves and items by id, for the pickers and alarm cards. */
export default decoratorPlugin('master-names', createMasterNames, ['game-data'])
