import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { PokemonNowSchema, QuestRewardsNowSchema, RaidBossesNowSchema } from '../../../schemas/estimates.js'

/**
 * What the scanner sees right now (`/api/alarm-estimates/now`), for the pickers: species alive, raid bosses,
 * quest rewards. Counts only, never a position; shared by everyone and read at most once a minute.
 */
const estimatesNowRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, alarmEstimates } = fastify
  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/pokemon', {
    schema: { tags: ['alarm-estimates'], description: 'Species and forms alive now, with how many.', response: { 200: PokemonNowSchema, ...errors(401) } }
  }, async () => {
    const { enabled, value } = await alarmEstimates.pokemonNow()
    return { enabled, pokemon: value }
  })

  fastify.get('/raid-bosses', {
    schema: { tags: ['alarm-estimates'], description: 'Bosses of the raids running now, by level.', response: { 200: RaidBossesNowSchema, ...errors(401) } }
  }, async () => {
    const { enabled, value } = await alarmEstimates.raidBossesNow()
    return { enabled, bosses: value }
  })

  fastify.get('/quest-rewards', {
    schema: { tags: ['alarm-estimates'], description: 'Rewards of today\'s quests, with how many stops offer each.', response: { 200: QuestRewardsNowSchema, ...errors(401) } }
  }, async () => {
    const { enabled, value } = await alarmEstimates.questRewardsNow()
    return { enabled, rewards: value }
  })
}

export default estimatesNowRoutes
