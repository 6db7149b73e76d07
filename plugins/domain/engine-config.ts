import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { PoracleWebConfig } from '../data/engine.js'
import { engineCapabilities, engineName } from '../data/engine/capabilities.js'
import type { EngineGeneration } from '../../schemas/alarm-types.js'
import type { PublicConfig } from '../../schemas/engine-config.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

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

/**
 * The engine's configuration as the client needs it: the projected settings, which engine answers and
 * what it can do, its alert templates and its message templates (DTS). Reads that the client's forms
 * depend on degrade to the reference's defaults when the engine cannot be read.
 */
function createEngineConfig (fastify: FastifyInstance) {
  const { engine, scanner } = fastify

  return {
    async forClient (requestLog: FastifyBaseLogger): Promise<PublicConfig> {
      const [projected, generation] = await engine.orFallback<[Omit<PublicConfig, 'engine' | 'gymPicker'>, EngineGeneration | null]>(
        () => Promise.all([engine.config.poracleWeb().then(project), engine.generation()]),
        { log: requestLog, message: 'alarm engine configuration unavailable; answering defaults', fallback: [FALLBACK, null] }
      )
      return {
        ...projected,
        engine: { generation, name: engineName(generation), reachable: generation !== null, capabilities: engineCapabilities(generation) },
        gymPicker: scanner.configured
      }
    },

    /** The alert templates by platform; none while the engine cannot be read. */
    async templates (requestLog: FastifyBaseLogger) {
      const templates = await engine.orFallback(() => engine.config.templates(), {
        log: requestLog, message: 'alarm engine templates unavailable; answering none', fallback: {}
      })
      return { discord: {}, telegram: {}, ...templates }
    },

    /** The message templates for previews (PoracleNG; PoracleJS has no API for them: 501). */
    dts: () => engine.dts.templates()
  }
}

export type EngineConfig = ReturnType<typeof createEngineConfig>

declare module 'fastify' {
  interface FastifyInstance {
    engineConfig: EngineConfig
  }
}

export default decoratorPlugin('engine-config', createEngineConfig, ['engine', 'scanner'])
