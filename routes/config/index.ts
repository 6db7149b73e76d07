import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { PoracleWebConfig } from '../../plugins/data/engine.js'
import type { EngineGeneration } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'
import { PublicConfigSchema, TemplatesSchema, type PublicConfig } from '../../schemas/engine-config.js'
import { engineCapabilities, engineName } from '../../plugins/data/engine/capabilities.js'

const number = (value: unknown, fallback: number): number => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : fallback
}

/** The reference's answer when the engine cannot be read, so the client's forms still work. */
const FALLBACK = {
  locale: 'en',
  poracleVersion: 'unknown',
  pvpFilterMaxRank: 100,
  pvpFilterLittleMinCp: 0,
  pvpFilterGreatMinCp: 0,
  pvpFilterUltraMinCp: 0,
  pvpLittleLeagueAllowed: true,
  pvpCaps: [50],
  defaultPvpCap: 50,
  defaultTemplateName: 'default',
  everythingFlagPermissions: null,
  maxDistance: 10_726_000
} satisfies Omit<PublicConfig, 'engine' | 'gymPicker'>

function project (config: PoracleWebConfig): Omit<PublicConfig, 'engine' | 'gymPicker'> {
  const raw = config.raw
  return {
    locale: config.locale ?? FALLBACK.locale,
    poracleVersion: config.version ?? FALLBACK.poracleVersion,
    pvpFilterMaxRank: number(raw.pvpFilterMaxRank, FALLBACK.pvpFilterMaxRank),
    pvpFilterLittleMinCp: number(raw.pvpFilterLittleMinCP, FALLBACK.pvpFilterLittleMinCp),
    pvpFilterGreatMinCp: number(raw.pvpFilterGreatMinCP, FALLBACK.pvpFilterGreatMinCp),
    pvpFilterUltraMinCp: number(raw.pvpFilterUltraMinCP, FALLBACK.pvpFilterUltraMinCp),
    pvpLittleLeagueAllowed: raw.pvpLittleLeagueAllowed !== false,
    pvpCaps: config.pvpCaps.length > 0 ? config.pvpCaps : FALLBACK.pvpCaps,
    defaultPvpCap: number(raw.defaultPvpCap, FALLBACK.defaultPvpCap),
    defaultTemplateName: config.defaultTemplateName,
    everythingFlagPermissions: config.everythingFlagPermissions,
    maxDistance: config.maxDistance ?? FALLBACK.maxDistance
  }
}

/** The engine's configuration as the client needs it (`/api/config`), and its alert templates. */
const engineConfigRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engine, scanner } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: { tags: ['config'], response: { 200: PublicConfigSchema, ...errors(401) } }
  }, async (request) => {
    const [projected, generation] = await engine.orFallback<[Omit<PublicConfig, 'engine' | 'gymPicker'>, EngineGeneration | null]>(
      () => Promise.all([engine.config.poracleWeb().then(project), engine.generation()]),
      { log: request.log, message: 'alarm engine configuration unavailable; answering defaults', fallback: [FALLBACK, null] }
    )
    return {
      ...projected,
      engine: { generation, name: engineName(generation), reachable: generation !== null, capabilities: engineCapabilities(generation) },
      gymPicker: scanner.configured
    }
  })

  fastify.get('/templates', {
    schema: { tags: ['config'], response: { 200: TemplatesSchema } }
  }, async (request) => {
    const templates = await engine.orFallback(() => engine.config.templates(), {
      log: request.log, message: 'alarm engine templates unavailable; answering none', fallback: {}
    })
    return { discord: {}, telegram: {}, ...templates }
  })
}

export default engineConfigRoutes
