import { createHash } from 'node:crypto'
import { and, eq, inArray } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { pushDelivery, pushSubscriptions } from '../../db/schema/service.js'
import { fromSqlTime, toSqlTime } from '../../db/client.js'
import { deviceLabel } from '../../lib/devices.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import type { AlarmType } from '../../schemas/alarm-types.js'
import type { DeliveryMode, PushDevice, PushSubscribe, PushSubscriptionChange, QuietHours } from '../../schemas/push.js'
import type { PushTarget } from './push-sender.js'

/**
 * The devices a member gets push alerts on (docs/push.md): one row per browser subscription, with the
 * device's own choices (alarm types, quiet hours) and the sign-in that subscribed; and per profile where
 * the member's alerts go (chat, push or both). A subscription the push service calls gone is deleted here.
 */

/** With a device and no choice made, alerts go both ways: enabling push on a device should not silence the chat. */
export const DEFAULT_DELIVERY_MODE: DeliveryMode = 'both'

/** A subscribed device as the senders need it: where to send, and what it wants. */
export interface PushDeviceTarget extends PushTarget {
  userId: string
  types: AlarmType[] | null
  quietHours: QuietHours | null
}

const endpointHash = (endpoint: string) => createHash('sha256').update(endpoint, 'utf8').digest('hex')
const iso = (sqlTime: string) => new Date(fromSqlTime(sqlTime)).toISOString()

function createPushSubscriptions (fastify: FastifyInstance) {
  const { db, clock, pushSender, cacheEviction, log } = fastify
  const changeListeners: Array<(userId: string | null) => Promise<void>> = []
  /**
   * Tells the listeners whose devices or choices changed (null: someone's, unknown whose), and waits for
   * them: once a member's change is answered, this instance's memory of it is current.
   */
  const changed = async (userId: string | null) => { await Promise.all(changeListeners.map((listener) => listener(userId))) }

  async function removeById (id: number): Promise<void> {
    await db.db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, id))
    await changed(null)
  }

  // A device's sign-in that ends (signed out, ended from My devices, revoked) ends its push alerts: the
  // session ends announce themselves on every instance; the delete is the same wherever it runs.
  cacheEviction.on('session-end', (key) => {
    const sid = key.startsWith('sid:') ? key.slice('sid:'.length) : key.startsWith('family:') ? key.slice('family:'.length) : null
    if (sid === null) return
    db.db.delete(pushSubscriptions).where(eq(pushSubscriptions.sessionSid, sid))
      .then(() => changed(null), (error: unknown) => log.warn({ error: (error as Error).message }, 'push subscriptions of an ended session not deleted'))
      .catch(() => {})
  })

  pushSender.onGone((id) => {
    removeById(id).catch((error: unknown) => log.warn({ subscriptionId: id, error: (error as Error).message }, 'gone push subscription not deleted'))
  })

  const targetColumns = {
    id: pushSubscriptions.id,
    userId: pushSubscriptions.userId,
    endpoint: pushSubscriptions.endpoint,
    p256dh: pushSubscriptions.p256dh,
    auth: pushSubscriptions.auth,
    types: pushSubscriptions.typesJson,
    quietHours: pushSubscriptions.quietHoursJson
  }
  type TargetRow = { id: number, userId: string, endpoint: string, p256dh: string, auth: string, types: unknown, quietHours: unknown }
  const toTarget = (row: TargetRow): PushDeviceTarget => ({
    ...row,
    types: (row.types ?? null) as AlarmType[] | null,
    quietHours: (row.quietHours ?? null) as QuietHours | null
  })

  return {
    /**
     * Stores the browser's subscription for this member and sign-in (the same browser subscribing again,
     * or for another member, replaces its row) and answers its id. The endpoint is checked first (400).
     */
    async subscribe (userId: string, sid: string | undefined, subscription: PushSubscribe, userAgent: string | undefined): Promise<number> {
      await pushSender.checkEndpoint(subscription.endpoint)
      const hash = endpointHash(subscription.endpoint)
      const values = {
        userId,
        sessionSid: sid ?? null,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
        device: (deviceLabel(userAgent) ?? '').slice(0, 100),
        typesJson: subscription.types ?? null,
        quietHoursJson: subscription.quietHours ?? null
      }
      await db.db.insert(pushSubscriptions).values({ ...values, endpoint: subscription.endpoint, endpointHash: hash, createdAt: toSqlTime(clock.now()) })
        .onDuplicateKeyUpdate({ set: values })
      const [row] = await db.db.select({ id: pushSubscriptions.id }).from(pushSubscriptions).where(eq(pushSubscriptions.endpointHash, hash)).limit(1)
      if (row === undefined) throw new Error('push subscription vanished after its write')
      await changed(userId)
      return row.id
    },

    /** The member's devices, never their endpoints or keys. */
    async list (userId: string, currentSid: string | undefined): Promise<PushDevice[]> {
      const rows = await db.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).orderBy(pushSubscriptions.id)
      return rows.map((row) => ({
        id: row.id,
        device: row.device,
        pushService: new URL(row.endpoint).hostname,
        types: (row.typesJson ?? null) as AlarmType[] | null,
        quietHours: (row.quietHoursJson ?? null) as QuietHours | null,
        createdAt: iso(row.createdAt),
        lastSentAt: row.lastSentAt === null ? null : iso(row.lastSentAt),
        current: currentSid !== undefined && row.sessionSid === currentSid
      }))
    },

    /** Changes a device's choices; false when the member has no such device. */
    async change (userId: string, id: number, change: PushSubscriptionChange): Promise<boolean> {
      const set: Partial<typeof pushSubscriptions.$inferInsert> = {}
      if (change.types !== undefined) set.typesJson = change.types
      if (change.quietHours !== undefined) set.quietHoursJson = change.quietHours
      const [result] = await db.db.update(pushSubscriptions).set(set).where(and(eq(pushSubscriptions.id, id), eq(pushSubscriptions.userId, userId)))
      await changed(userId)
      return (result as { affectedRows: number }).affectedRows > 0
    },

    /** Ends one of the member's subscriptions; false when the member has no such device. */
    async remove (userId: string, id: number): Promise<boolean> {
      const [result] = await db.db.delete(pushSubscriptions).where(and(eq(pushSubscriptions.id, id), eq(pushSubscriptions.userId, userId)))
      await changed(userId)
      return (result as { affectedRows: number }).affectedRows > 0
    },

    /** Called after a member's devices or delivery choices change in this instance. */
    onChange (listener: (userId: string | null) => Promise<void>): void {
      changeListeners.push(listener)
    },

    /** One of the member's devices, to send to; null when the member has no such device. */
    async target (userId: string, id: number): Promise<PushDeviceTarget | null> {
      const [row] = await db.db.select(targetColumns).from(pushSubscriptions).where(and(eq(pushSubscriptions.id, id), eq(pushSubscriptions.userId, userId))).limit(1)
      return row === undefined ? null : toTarget(row)
    },

    /** Every member's devices: what the push senders match events for. */
    async allTargets (): Promise<PushDeviceTarget[]> {
      return (await db.db.select(targetColumns).from(pushSubscriptions)).map(toTarget)
    },

    /** Remembers that these devices were sent to now, for their owners' lists: one write for all. */
    async markSent (ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return
      await db.db.update(pushSubscriptions).set({ lastSentAt: toSqlTime(clock.now()) }).where(inArray(pushSubscriptions.id, [...ids]))
    },

    /** The member's choice per profile (profiles without one follow DEFAULT_DELIVERY_MODE). */
    async deliveryModes (userId: string): Promise<Array<{ profileNo: number, mode: DeliveryMode }>> {
      const rows = await db.db.select({ profileNo: pushDelivery.profileNo, mode: pushDelivery.mode }).from(pushDelivery)
        .where(eq(pushDelivery.userId, userId)).orderBy(pushDelivery.profileNo)
      return rows.map((row) => ({ profileNo: row.profileNo, mode: row.mode as DeliveryMode }))
    },

    async setDeliveryMode (userId: string, profileNo: number, mode: DeliveryMode): Promise<void> {
      await db.db.insert(pushDelivery).values({ userId, profileNo, mode }).onDuplicateKeyUpdate({ set: { mode } })
      await changed(userId)
    },

    /** Every member's choices, for the senders' memory. */
    async allDeliveryModes (): Promise<Array<{ userId: string, profileNo: number, mode: DeliveryMode }>> {
      const rows = await db.db.select().from(pushDelivery)
      return rows.map((row) => ({ userId: row.userId, profileNo: row.profileNo, mode: row.mode as DeliveryMode }))
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    pushSubscriptions: ReturnType<typeof createPushSubscriptions>
  }
}

export default decoratorPlugin('push-subscriptions', createPushSubscriptions, ['db', 'clock', 'cache-eviction', 'push-sender'])
