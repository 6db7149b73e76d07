import type { Static } from '@sinclair/typebox'
import type { EstimateAnswer, ProfileEstimateAnswer, QuestRewardsNowSchema, RaidBossesNowSchema } from '../../../schemas/estimates'
import { api, withQuery } from './transport'

/** How often an alarm (new, or `uid` as edited) would fire. */
export const estimate = async (type: string, alarm: Record<string, unknown>, uid: number | undefined, signal?: AbortSignal): Promise<EstimateAnswer> =>
  await api('/api/alarm-estimates', { method: 'POST', json: { type, alarm, ...(uid !== undefined ? { uid } : {}) }, signal })

/** How often the active profile's alarms of a type fire together. */
export const profileEstimate = async (type: string, signal?: AbortSignal): Promise<ProfileEstimateAnswer> =>
  await api(withQuery('/api/alarm-estimates', { type }), { signal })

/** Bosses of the raids running now, by level (the scanner's gyms; `enabled` false without a scanner). */
export const raidBossesNow = async (): Promise<Static<typeof RaidBossesNowSchema>> => await api('/api/alarm-estimates/now/raid-bosses')

/** Rewards of today's quests, with how many stops offer each. */
export const questRewardsNow = async (): Promise<Static<typeof QuestRewardsNowSchema>> => await api('/api/alarm-estimates/now/quest-rewards')
