import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import { readFile, readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Config } from '../schemas/config.js'

/**
 * Provider refresh tokens at rest: AES-256-GCM, random 96-bit IV, the family id as additional
 * authenticated data so a ciphertext copied onto another family's row does not decrypt.
 *
 * Every key that encrypts comes from the configuration, so that every instance of a site given the same
 * configuration encrypts and decrypts alike: OIDC_TOKEN_ENCRYPTION_KEY, else a key derived from
 * JWT_SECRET. Retired keys (still decrypting) are OIDC_TOKEN_RETIRED_KEYS, the derived key once a key is
 * configured, and the key file that earlier versions created in DATA_DIR, read so that sessions made
 * before the upgrade keep renewing.
 */

/** The key file earlier versions created in DATA_DIR; read, never written. */
export const KEY_FILE = 'oidc-token-encryption.key'
/** Retired key files earlier versions read from DATA_DIR; now refused (see loadKeyRing). */
export const RETIRED_KEY_FILE = /^oidc-token-encryption\.[^/]+\.key$/

/** HKDF parameters of the key derived from JWT_SECRET; `info` names the purpose so no other key equals it. */
const DERIVED_KEY_SALT = 'alarm-web'
const DERIVED_KEY_INFO = 'alarm-web provider-token encryption v1'

export interface KeyRing {
  /** Encrypts every new ciphertext. */
  current: { id: string, key: Buffer }
  /** Every key that may still decrypt, by id (the current one included). */
  byId: Map<string, Buffer>
}

/** A key's id: a fingerprint that names the key without revealing it, stored next to each ciphertext. */
export function keyId (key: Buffer): string {
  return createHash('sha256').update('alarm-web token key\0').update(key).digest('hex').slice(0, 16)
}

/** The provider-token key of a site that sets no OIDC_TOKEN_ENCRYPTION_KEY: HKDF-SHA256 of JWT_SECRET. */
export function derivedKey (jwtSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(jwtSecret, 'utf8'), DERIVED_KEY_SALT, DERIVED_KEY_INFO, 32))
}

function parseKey (raw: string, source: string): Buffer {
  const key = Buffer.from(raw.trim(), 'base64')
  if (key.length !== 32) throw new Error(`${source} must hold a base64-encoded 32-byte key`)
  return key
}

export function keyRingOf (current: Buffer, retired: Buffer[] = []): KeyRing {
  const byId = new Map<string, Buffer>()
  for (const key of retired) byId.set(keyId(key), key)
  byId.set(keyId(current), current)
  return { current: { id: keyId(current), key: current }, byId }
}

/** Start-up refused: a setting that would make instances of one site disagree about keys. */
export class KeySetupError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'KeySetupError'
  }
}

type KeyConfig = Pick<Config, 'OIDC_TOKEN_ENCRYPTION_KEY' | 'OIDC_TOKEN_RETIRED_KEYS' | 'JWT_SECRET' | 'DATA_DIR'>

/**
 * The key ring of this instance, from configuration alone plus, read-only, the key file of earlier
 * versions (`legacyFile` names it when it was found). Throws KeySetupError when DATA_DIR holds retired
 * key files: they are per instance, so instances would decrypt different sets of sessions; retired keys
 * belong in OIDC_TOKEN_RETIRED_KEYS, which every instance reads alike.
 */
export async function loadKeyRing (config: KeyConfig): Promise<{ ring: KeyRing, legacyFile?: string }> {
  const dir = resolve(config.DATA_DIR)
  let names: string[] = []
  try {
    names = await readdir(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const retiredFiles = names.filter((n) => n !== KEY_FILE && RETIRED_KEY_FILE.test(n)).sort()
  if (retiredFiles.length > 0) {
    throw new KeySetupError(`${retiredFiles.map((n) => join(dir, n)).join(', ')}: retired provider-token keys are read from OIDC_TOKEN_RETIRED_KEYS (the same on every instance), no longer from DATA_DIR. Move each file's contents into OIDC_TOKEN_RETIRED_KEYS (comma-separated) and delete the files.`)
  }

  const retired = config.OIDC_TOKEN_RETIRED_KEYS.map((raw, i) => parseKey(raw, `OIDC_TOKEN_RETIRED_KEYS entry ${i + 1}`))
  let legacyFile: string | undefined
  if (names.includes(KEY_FILE)) {
    legacyFile = join(dir, KEY_FILE)
    retired.push(parseKey(await readFile(legacyFile, 'utf8'), legacyFile))
  }
  const derived = derivedKey(config.JWT_SECRET)
  // A site that moves from the derived key to a configured one keeps its sessions: the derived key decrypts.
  if (config.OIDC_TOKEN_ENCRYPTION_KEY !== '') retired.push(derived)
  const current = config.OIDC_TOKEN_ENCRYPTION_KEY !== '' ? parseKey(config.OIDC_TOKEN_ENCRYPTION_KEY, 'OIDC_TOKEN_ENCRYPTION_KEY') : derived
  return { ring: keyRingOf(current, retired), ...(legacyFile !== undefined && { legacyFile }) }
}

export function encryptToken (ring: KeyRing, plaintext: string, familyId: string): { ciphertext: string, keyId: string } {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', ring.current.key, iv)
  cipher.setAAD(Buffer.from(familyId, 'utf8'))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'))
  return { ciphertext: `v1.${parts.join('.')}`, keyId: ring.current.id }
}

/** Throws on an unknown key id, a malformed value or a failed authentication tag. */
export function decryptToken (ring: KeyRing, ciphertext: string, id: string, familyId: string): string {
  const key = ring.byId.get(id)
  if (key === undefined) throw new Error('unknown encryption key id')
  const [version, iv, tag, body] = ciphertext.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('malformed ciphertext')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAAD(Buffer.from(familyId, 'utf8'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
