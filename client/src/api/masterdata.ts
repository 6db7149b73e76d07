import type { Static } from '@sinclair/typebox'
import type { GameDataSchema, IconSetSchema, RaidLevelSchema } from '../../../schemas/masterdata'
import type { MapSettingsSchema } from '../../../schemas/map'
import type { GymSchema, PokemonAvailabilitySchema } from '../../../schemas/scanner'
import { api, segment, withQuery } from './transport'

type GameData = Static<typeof GameDataSchema>
type RaidLevel = Static<typeof RaidLevelSchema>
type Gym = Static<typeof GymSchema>

/** The game's species, named in `locale`. */
export const monsters = async (locale: string): Promise<GameData> => await api(withQuery('/api/masterdata/monsters', { locale }))

export const grunts = async (): Promise<GameData> => await api('/api/masterdata/grunts')

/** Move names by id, in English: the master file names them in no other language. */
export const moves = async (): Promise<Record<string, string>> => await api('/api/masterdata/moves')

export const raidLevels = async (): Promise<RaidLevel[]> => await api('/api/masterdata/raid-levels')

export const maxLevels = async (): Promise<RaidLevel[]> => await api('/api/masterdata/max-levels')

/** The icon set's index for one category. */
export const icons = async (category: string): Promise<Static<typeof IconSetSchema>> => await api(`/api/masterdata/icons/${segment(category)}`)

/** The species spawning now, when the site has a scanner. */
export const pokemonAvailability = async (): Promise<Static<typeof PokemonAvailabilitySchema>> => await api('/api/pokemon-availability')

export const searchGyms = async (search: string, limit: number, signal?: AbortSignal): Promise<Gym[]> =>
  await api(withQuery('/api/scanner/gyms', { search, limit }), { signal })

export const gym = async (id: string): Promise<Gym> => await api(`/api/scanner/gyms/${segment(id)}`)

/** The tile server the maps draw with. */
export const mapSettings = async (signal?: AbortSignal): Promise<Static<typeof MapSettingsSchema>> => await api('/api/map', { signal })

/** The pokémon at the scanner's power spots now (empty without a scanner). */
export const maxBattlePokemon = async (): Promise<number[]> => await api('/api/scanner/max-battle-pokemon')
