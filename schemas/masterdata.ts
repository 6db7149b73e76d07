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

/** The icon categories of `/api/masterdata/icons/:category` (plugins/domain/game-data.ts ICON_CATEGORIES). */
export const IconCategoryParamsSchema = Type.Object({
  category: Type.Union([
    Type.Literal('pokemon'), Type.Literal('raid'), Type.Literal('gym'), Type.Literal('team'), Type.Literal('invasion'), Type.Literal('pokestop'),
    Type.Literal('reward'), Type.Literal('item'), Type.Literal('type'), Type.Literal('weather'), Type.Literal('misc')
  ], { description: 'Icon category' })
})

/**
 * Where a category's icons are (`base`, an http(s) folder holding the UICONS set) and the names of its
 * files from the set's index.json: a list for a leaf folder, lists by subfolder for `raid` and `reward`;
 * null when the set's index could not be read.
 */
export const IconSetSchema = Type.Object({
  base: Type.String(),
  files: Type.Union([Type.Array(Type.String()), Type.Record(Type.String(), Type.Array(Type.String())), Type.Null()])
})
