import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import { GameDataSchema, IconCategoryParamsSchema, IconSetSchema, MonstersQuerySchema, RaidLevelSchema } from '../../schemas/masterdata.js'

const level = (value: number, category: string, name: string) => ({ value, category, name: `${name} Raid`, namePlural: `${name} Raids` })

/**
 * The raid levels the game has (the masterfile's 19): the engine matches raids by number only, so the
 * names are vocabulary for the client. 9000 ("any level") is the engine's wildcard, not a level.
 */
const RAID_LEVELS = [
  level(1, 'star', '1-Star'),
  level(2, 'star', '2-Star'),
  level(3, 'star', '3-Star'),
  level(4, 'star', '4-Star'),
  level(5, 'star', '5-Star'),
  level(6, 'mega', 'Mega'),
  level(7, 'mega', 'Mega Legendary'),
  level(8, 'special', 'Ultra Beast'),
  level(9, 'special', 'Elite'),
  level(10, 'special', 'Primal'),
  level(11, 'shadow', '1-Star Shadow'),
  level(12, 'shadow', '2-Star Shadow'),
  level(13, 'shadow', '3-Star Shadow'),
  level(14, 'shadow', '4-Star Shadow'),
  level(15, 'shadow', '5-Star Shadow'),
  level(16, 'superMega', 'Super Mega'),
  level(17, 'superMega', 'Super Mega Legendary'),
  level(18, 'coordinated', '4-Star Coordinated'),
  level(19, 'coordinated', '5-Star Coordinated')
]

/** Any text: an unusable locale falls back to English instead of failing the picker. */
const LocaleQuerySchema = Type.Object({ locale: Type.Optional(Type.String({ maxLength: 200 })) })
const NamesSchema = Type.Record(Type.String(), Type.String())

const maxLevel = (value: number, category: string, name: string) => ({ value, category, name: `${name} Max Battle`, namePlural: `${name} Max Battles` })

/**
 * The max battle levels the engine matches (`maxbattle.level`): 1-5 stars, 7 Gigantamax and 8 Legendary
 * Gigantamax; the engine's 9000 means any level. Raid levels are a different list.
 */
const MAX_LEVELS = [
  maxLevel(1, 'star', '1-Star'),
  maxLevel(2, 'star', '2-Star'),
  maxLevel(3, 'star', '3-Star'),
  maxLevel(4, 'star', '4-Star'),
  maxLevel(5, 'legendary', 'Legendary'),
  maxLevel(7, 'gigantamax', 'Gigantamax'),
  maxLevel(8, 'gigantamax', 'Legendary Gigantamax')
]

/**
 * Game data for the alarm forms (`/api/masterdata`), anonymous like the reference: localized monsters and
 * grunts (the engine's, else the master file's), the built-in raid and max battle levels, the index of
 * each category's icon set, and `{ id: name }` maps for pokemon, moves and items (items need a signed-in
 * user, as in the reference).
 */
const masterdataRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { gameData, masterNames, auth } = fastify
  const tags = ['masterdata']

  fastify.get('/monsters', {
    schema: { tags: ['masterdata'], querystring: MonstersQuerySchema, response: { 200: GameDataSchema, ...errors(400, 503) } }
  }, async (request) => await gameData.monsters(request.query.locale ?? 'en'))

  fastify.get('/grunts', {
    schema: { tags: ['masterdata'], response: { 200: GameDataSchema, ...errors(503) } }
  }, async () => await gameData.grunts())

  fastify.get('/raid-levels', {
    schema: { tags: ['masterdata'], response: { 200: Type.Array(RaidLevelSchema) } }
  }, async () => RAID_LEVELS)

  fastify.get('/max-levels', {
    schema: { tags: ['masterdata'], response: { 200: Type.Array(RaidLevelSchema) } }
  }, async () => MAX_LEVELS)

  fastify.get('/icons/:category', {
    schema: { tags: ['masterdata'], params: IconCategoryParamsSchema, response: { 200: IconSetSchema, ...errors(400) } }
  }, async (request) => await gameData.icons(request.params.category))

  fastify.get('/pokemon', {
    schema: { tags, querystring: LocaleQuerySchema, response: { 200: NamesSchema, ...errors(400, 503) } }
  }, async (request) => masterNames.pokemon(request.query.locale))

  fastify.get('/moves', {
    schema: { tags, querystring: LocaleQuerySchema, response: { 200: NamesSchema, ...errors(400, 503) } }
  }, async () => masterNames.moves())

  fastify.get('/items', {
    onRequest: auth.authenticate,
    schema: { tags, querystring: LocaleQuerySchema, response: { 200: NamesSchema, ...errors(400, 401, 503) } }
  }, async () => masterNames.items())
}

export default masterdataRoutes
