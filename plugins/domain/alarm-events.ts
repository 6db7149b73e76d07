import { EventEmitter } from 'node:events'
import fp from 'fastify-plugin'
import type { AlarmType } from '../../schemas/alarm-types.js'

/** An alarm now lives under another uid (PoracleNG re-keys edited rows; superseded rows are replaced). */
export interface UidChanged {
  userId: string
  type: AlarmType
  oldUid: number
  newUid: number
}

interface AlarmEventMap {
  uidChanged: [UidChanged]
}

type Listener<K extends keyof AlarmEventMap> = (...args: AlarmEventMap[K]) => void | Promise<void>

function createAlarmEvents (log: import('fastify').FastifyBaseLogger) {
  const emitter = new EventEmitter<AlarmEventMap>()
  return {
    on: <K extends keyof AlarmEventMap>(event: K, listener: Listener<K>) => { emitter.on(event, listener as never) },
    off: <K extends keyof AlarmEventMap>(event: K, listener: Listener<K>) => { emitter.off(event, listener as never) },
    /**
     * Calls each listener in turn and waits for it, so the write answers only once what follows it is
     * recorded (a quick pick's tracked uids: a read right after the edit must not find the old uid gone
     * and the new one not yet there). A failing listener is logged and must not fail the write that
     * already happened.
     */
    async emit<K extends keyof AlarmEventMap> (event: K, ...args: AlarmEventMap[K]): Promise<void> {
      for (const listener of emitter.listeners(event)) {
        try {
          await (listener as Listener<K>)(...args)
        } catch (err) {
          log.error({ err, event }, 'alarm event listener failed')
        }
      }
    }
  }
}

export type AlarmEvents = ReturnType<typeof createAlarmEvents>

declare module 'fastify' {
  interface FastifyInstance {
    alarmEvents: AlarmEvents
  }
}

/** In-process notifications about alarms, for concerns that keep uids of their own (quick picks). */
export default fp(async (fastify) => {
  fastify.decorate('alarmEvents', createAlarmEvents(fastify.log))
}, { name: 'alarm-events', fastify: '5.x' })
