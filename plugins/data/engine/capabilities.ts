import type { EngineGeneration } from '../../../schemas/alarm-types.js'
import type { EngineCapabilities } from '../../../schemas/engine-config.js'

export const engineName = (generation: EngineGeneration | null): string | null =>
  generation === 'ng' ? 'PoracleNG' : generation === 'js' ? 'PoracleJS' : null

/**
 * The features of each engine generation (alarm-engine.md 1.2): PoracleJS has no fort change or max
 * battle tracking, no summaries, no test route and no state reload. With the engine unreachable nothing
 * is promised.
 */
export function engineCapabilities (generation: EngineGeneration | null): EngineCapabilities {
  const ng = generation === 'ng'
  return {
    fortChanges: ng,
    maxBattles: ng,
    summaries: ng,
    testAlerts: ng,
    reload: ng,
    userCreation: ng,
    savedPlaces: false
  }
}
