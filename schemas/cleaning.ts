import { Type } from '@sinclair/typebox'
import type { AlarmType } from '../plugins/engine.js'

/**
 * The alarm types with an auto-delete bit, by their names in the cleaning paths (fort changes have no
 * `clean` column), with the engine's type and the site switch that disables them.
 */
export const CLEANING_TYPES = {
  monsters: { type: 'pokemon', disableKey: 'disable_mons' },
  raids: { type: 'raid', disableKey: 'disable_raids' },
  eggs: { type: 'egg', disableKey: 'disable_raids' },
  quests: { type: 'quest', disableKey: 'disable_quests' },
  invasions: { type: 'invasion', disableKey: 'disable_invasions' },
  lures: { type: 'lure', disableKey: 'disable_lures' },
  nests: { type: 'nest', disableKey: 'disable_nests' },
  gyms: { type: 'gym', disableKey: 'disable_gyms' },
  maxbattles: { type: 'maxbattle', disableKey: 'disable_maxbattles' }
} as const satisfies Record<string, { type: AlarmType, disableKey: string }>
export type CleaningType = keyof typeof CLEANING_TYPES

const enabled = Type.Integer({ minimum: 0, maximum: 1, description: '1 = turn auto-delete on, 0 = off' })

export const CleaningTypeParamsSchema = Type.Object({
  alarmType: Type.Union(Object.keys(CLEANING_TYPES).map((k) => Type.Literal(k))),
  enabled
})
export const CleaningAllParamsSchema = Type.Object({ enabled })

/** Per type: true when the type has alarms and every one of them has the auto-delete bit. */
export const CleaningStatusSchema = Type.Object(Object.fromEntries(Object.keys(CLEANING_TYPES).map((k) => [k, Type.Boolean()])))

export const CleaningResultSchema = Type.Object({ updated: Type.Integer() })
export const CleaningAllResultSchema = Type.Object({
  updated: Type.Integer(),
  skipped: Type.Array(Type.String(), { description: 'The disable keys of the types left alone because they are switched off' })
})
