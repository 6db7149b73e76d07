import type { EstimateAnswer, ProfileEstimateAnswer } from '../../../schemas/estimates'

/** The answers of /api/alarm-estimates: the server's own types (schemas/estimates.ts). */
export type Estimate = EstimateAnswer
export type ProfileEstimate = ProfileEstimateAnswer

/** The alarm types the scanner can estimate; the others always answer "unavailable". */
export const ESTIMATED_TYPES = new Set(['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'])

/** A day's worth: the statistics' typical day, else the recent window stretched to 24 hours. */
export const dailyFigure = (e: Pick<Estimate, 'perDay' | 'recent' | 'windowHours'>): number | null =>
  e.perDay ?? (e.recent === null ? null : (e.recent * 24) / Math.max(1, e.windowHours))
