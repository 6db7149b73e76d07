import { Type } from '@sinclair/typebox'

export const MonstersQuerySchema = Type.Object({
  locale: Type.Optional(Type.String({ pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$', description: 'Display language, e.g. en, de, pt-BR (default en)' }))
})

/** The engine's game data, passed through as it sends it (keyed "{id}_{form}" for monsters). */
export const GameDataSchema = Type.Record(Type.String(), Type.Unknown())

export const RaidLevelSchema = Type.Object({
  value: Type.Integer(),
  category: Type.String(),
  name: Type.String(),
  namePlural: Type.String()
})
