import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/** How a handle starts: never a chat-platform id (digits) nor a webhook address (`http…`). */
export const WEBHOOK_HANDLE_PREFIX = 'wh_'

/**
 * The opaque names delegates know their webhooks by. A webhook's id in the engine is its address, and the
 * address carries the chat platform's token: whoever holds it can post to the channel. Delegates manage a
 * webhook's alarms, not its channel, so every answer and token they get names it by a handle instead: an
 * HMAC of the address under a key derived from JWT_SECRET, the same on every instance and across restarts,
 * from which the address cannot be recovered.
 */
export function webhookHandles (secret: string) {
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'alarm-web webhook handle', 32))
  const handleOf = (webhookId: string): string =>
    WEBHOOK_HANDLE_PREFIX + createHmac('sha256', key).update(webhookId).digest('base64url').slice(0, 32)

  return {
    handleOf,

    isHandle: (value: string): boolean => value.startsWith(WEBHOOK_HANDLE_PREFIX),

    /** The webhook of `webhookIds` that `handle` names, compared in constant time; null when none. */
    webhookFor (webhookIds: readonly string[], handle: string): string | null {
      const wanted = Buffer.from(handle)
      let found: string | null = null
      for (const webhookId of webhookIds) {
        const candidate = Buffer.from(handleOf(webhookId))
        if (candidate.length === wanted.length && timingSafeEqual(candidate, wanted)) found = webhookId
      }
      return found
    }
  }
}

export type WebhookHandles = ReturnType<typeof webhookHandles>

/** `value` with every occurrence of `from` inside its strings (keys and values, at any depth) replaced by `to`. */
export function replacedDeep (value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.includes(from) ? value.replaceAll(from, to) : value
  if (Array.isArray(value)) return value.map((item) => replacedDeep(item, from, to))
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [replacedDeep(key, from, to), replacedDeep(item, from, to)]))
  }
  return value
}
