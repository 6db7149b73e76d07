import { api } from '../../api'
import type { EstimateAnswer, ProfileEstimateAnswer } from '../../../../schemas/estimates'

/** The answers of /api/alarm-estimates: the server's own types (schemas/estimates.ts). */
export type Estimate = EstimateAnswer
export type ProfileEstimate = ProfileEstimateAnswer

/** The alarm types the scanner can estimate; the others always answer "unavailable". */
export const ESTIMATED_TYPES = new Set(['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'])

export const fetchEstimate = (type: string, alarm: Record<string, unknown>, uid: number | undefined, signal?: AbortSignal): Promise<Estimate> =>
  api<Estimate>('/api/alarm-estimates', { method: 'POST', json: { type, alarm, ...(uid !== undefined ? { uid } : {}) }, ...(signal !== undefined ? { signal } : {}) })

export const fetchProfileEstimate = (type: string, signal?: AbortSignal): Promise<ProfileEstimate> =>
  api<ProfileEstimate>(`/api/alarm-estimates?type=${encodeURIComponent(type)}`, signal !== undefined ? { signal } : {})

/** A day's worth: the statistics' typical day, else the recent window stretched to 24 hours. */
export const dailyFigure = (e: Pick<Estimate, 'perDay' | 'recent' | 'windowHours'>): number | null =>
  e.perDay ?? (e.recent === null ? null : (e.recent * 24) / Math.max(1, e.windowHours))

/* What is spawning now, for the pickers. */

export interface PokemonNow { enabled: boolean, pokemon: Array<{ pokemonId: number, form: number, count: number }> }
export interface RaidBossesNow { enabled: boolean, bosses: Array<{ level: number, pokemonId: number, form: number, evolution: number, count: number }> }
export interface QuestRewardsNow { enabled: boolean, rewards: Array<{ rewardType: number, itemId: number, pokemonId: number, form: number, amount: number, count: number }> }

export const fetchPokemonNow = (signal?: AbortSignal): Promise<PokemonNow> => api<PokemonNow>('/api/spawning-now/pokemon', signal !== undefined ? { signal } : {})
export const fetchRaidBossesNow = (signal?: AbortSignal): Promise<RaidBossesNow> => api<RaidBossesNow>('/api/spawning-now/raid-bosses', signal !== undefined ? { signal } : {})
export const fetchQuestRewardsNow = (signal?: AbortSignal): Promise<QuestRewardsNow> => api<QuestRewardsNow>('/api/spawning-now/quest-rewards', signal !== undefined ? { signal } : {})
