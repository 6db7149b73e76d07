import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { ALARM_KINDS } from '../../schemas/alarm-types.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import type { TrackingSnapshot } from '../data/engine/types.js'

/**
 * The dashboard's figures: alarm counts per type for the active profile, and the member's place in words
 * (the pin as an address where the site has a geocoder, the areas that hold it, and how many alarms are
 * measured from the pin). The place is a decoration, so a geocoder or engine that cannot answer leaves its
 * parts empty (and logged) instead of failing the page.
 */
function createDashboard (fastify: FastifyInstance) {
  const { areaSelection, engine, geocoder, clock } = fastify
  /**
   * The dashboard asks for its counts and its place at once, and both need the member's alarms: the two
   * share one engine read while it runs (kept no longer, so a count never lags behind a write).
   */
  const reads = new TtlCache<string, TrackingSnapshot>(clock, 1000)
  const alarmsOf = async (userId: string) => (await reads.getOrLoad(userId, async () => ({ value: await engine.tracking.all(userId), ttlMs: 0 }))).alarms

  async function address (lat: number, lon: number, lang: string | undefined, requestLog: FastifyBaseLogger): Promise<string | null> {
    if (!await geocoder.available()) return null
    try {
      return (await geocoder.reverse(lat, lon, lang)).label
    } catch (err) {
      requestLog.warn({ reason: (err as Error).name }, 'dashboard place: no address from the geocoder')
      return null
    }
  }

  return {
    async counts (userId: string): Promise<Record<string, number>> {
      const alarms = await alarmsOf(userId)
      return Object.fromEntries(ALARM_KINDS.map((k) => [k.dashboardKey, alarms[k.type].length]))
    },

    async place (userId: string, lat: number, lon: number, lang: string | undefined, requestLog: FastifyBaseLogger) {
      const [words, areas, distanceAlarms] = await Promise.all([
        address(lat, lon, lang, requestLog),
        engine.orFallback(async () => areaSelection.at(userId, lat, lon), { log: requestLog, message: 'dashboard place: alarm engine geofences unavailable', fallback: [] }),
        engine.orFallback(async () => {
          return Object.values(await alarmsOf(userId)).flat().filter((alarm) => Number(alarm.distance ?? 0) > 0).length
        }, { log: requestLog, message: 'dashboard place: alarm engine tracking unavailable', fallback: 0 })
      ])
      return { address: words, areas, distanceAlarms }
    }
  }
}

export type Dashboard = ReturnType<typeof createDashboard>

declare module 'fastify' {
  interface FastifyInstance {
    dashboard: Dashboard
  }
}

export default decoratorPlugin('dashboard', createDashboard, ['clock', 'engine', 'area-selection', 'geocoder'])
