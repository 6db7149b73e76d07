import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { EventType } from '../../../schemas/alarm-explanations.js'

/**
 * The ids of the recent list's events ("why didn't I get that alert?"): the event itself (its type,
 * the webhook message as the engine would have received it, and when), sealed with AES-256-GCM under
 * a key derived from JWT_SECRET, with the member it was listed for as additional authenticated data.
 *
 * So the client can ask to explain an event without ever holding its position (the message inside
 * carries the exact coordinates; the client sees only ciphertext), an id cannot be altered into
 * another event, and an id listed for one member opens for nobody else: asked by another member it is
 * an unknown id. Every instance of a site derives the same key, so any of them explains any id; a new
 * JWT_SECRET makes the old ids unknown (they are only meant to live as long as the list they came from).
 */

const SALT = 'alarm-web'
const INFO = 'alarm-web explanation event ids v1'
const IV_BYTES = 12
const TAG_BYTES = 16

/** What an id holds. `at`: Unix seconds the engine would have received the event. */
export interface SealedEvent { type: EventType, message: Record<string, unknown>, at: number }

export interface EventIds {
  seal: (subjectId: string, event: SealedEvent) => string
  /** The event of an id sealed for this member; null for anything else (not an id, altered, another member's). */
  open: (subjectId: string, id: string) => SealedEvent | null
}

export function eventIds (jwtSecret: string): EventIds {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(jwtSecret, 'utf8'), SALT, INFO, 32))
  return {
    seal (subjectId, event) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      cipher.setAAD(Buffer.from(subjectId, 'utf8'))
      const body = Buffer.concat([cipher.update(JSON.stringify([event.type, event.at, event.message]), 'utf8'), cipher.final()])
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
    },
    open (subjectId, id) {
      const raw = Buffer.from(id, 'base64url')
      if (raw.length <= IV_BYTES + TAG_BYTES) return null
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
        decipher.setAAD(Buffer.from(subjectId, 'utf8'))
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
        const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8')
        const [type, at, message] = JSON.parse(text) as [EventType, number, Record<string, unknown>]
        return { type, at, message }
      } catch {
        return null
      }
    }
  }
}
