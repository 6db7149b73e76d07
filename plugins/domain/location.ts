import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { EngineError } from '../data/engine.js'
import { notFound } from '../edge/errors.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { Undo } from '../../lib/undo.js'
import type { Static } from '@sinclair/typebox'
import type { WeatherSchema } from '../../schemas/scanner.js'

type Weather = Static<typeof WeatherSchema>

/** The engine's static map image address; an engine without a tile server (or failing) has none: 404. */
async function mapOrNotFound (make: () => Promise<string>): Promise<string> {
  try {
    return await make()
  } catch (err) {
    if (!(err instanceof EngineError)) throw err
    throw notFound('No map for this place.')
  }
}

/**
 * A member's pin (the active profile's location), the weather there, static map pictures of a place, and
 * the language the engine writes the member's alerts in. Writes run under the member's write lock.
 */
function createLocation (fastify: FastifyInstance) {
  const { engine, engineDb, scanner, userWriteLock } = fastify

  /** The active profile's pin; a PoracleJS user without a profile row has it on the human only. */
  async function pin (userId: string): Promise<{ latitude: number, longitude: number }> {
    const [human, rows] = await Promise.all([engine.humans.one(userId), engine.profiles.list(userId)])
    const active = rows.find((r) => Number(r.profile_no) === Number(human.current_profile_no)) ?? human
    return { latitude: Number(active.latitude), longitude: Number(active.longitude) }
  }

  return {
    pin,

    async setPin (userId: string, latitude: number, longitude: number): Promise<void> {
      await userWriteLock.run(userId, () => engine.humans.setLocation(userId, latitude, longitude))
    },

    /** The scanner's weather at the member's pin; null without a scanner, a pin (0, 0) or a reading. */
    async weatherAtPin (userId: string): Promise<Weather | null> {
      if (!scanner.configured) return null
      const human = await engine.humans.one(userId)
      const lat = Number(human.latitude)
      const lon = Number(human.longitude)
      if (lat === 0 && lon === 0) return null
      const [found] = await scanner.weatherAt([{ lat, lon }])
      return found ?? null
    },

    pinMap: (latitude: number, longitude: number) => mapOrNotFound(() => engine.geofence.locationMap(latitude, longitude)),
    circleMap: (latitude: number, longitude: number, metres: number) => mapOrNotFound(() => engine.geofence.distanceMap(latitude, longitude, metres)),

    async language (userId: string): Promise<string | null> {
      return (await engine.humans.one(userId)).language ?? null
    },

    /**
     * The engine has no call for the language: it is written to its database and the engine told to
     * reload; a failed reload takes the old value back. Read, write and undo hold the lock together, so a
     * second change in between is never undone.
     */
    async setLanguage (userId: string, language: string | null, requestLog: FastifyBaseLogger): Promise<void> {
      await userWriteLock.run(userId, async () => {
        const before = (await engine.humans.one(userId)).language ?? null
        const undo = new Undo(requestLog)
        await undo.guard(async () => {
          await engineDb.setLanguage(userId, language)
          undo.push('restore the notification language', () => engineDb.setLanguage(userId, before))
          await engine.reload()
        })
      })
    }
  }
}

export type Location = ReturnType<typeof createLocation>

declare module 'fastify' {
  interface FastifyInstance {
    location: Location
  }
}

export default decoratorPlugin('location', createLocation, ['engine', 'engine-db', 'scanner', 'user-write-lock'])
