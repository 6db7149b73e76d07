import { Type } from '@sinclair/typebox'
import { CLEANING_TYPES } from './alarm-types.js'

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
