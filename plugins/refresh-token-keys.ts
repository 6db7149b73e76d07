import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Config } from './config.js'

/**
 * Provider refresh tokens at rest: AES-256-GCM, random 96-bit IV, the family id as additional
 * authenticated data so a ciphertext copied onto another family's row does not decrypt. Keys come from
 * OIDC_TOKEN_ENCRYPTION_KEY or a key file in DATA_DIR; retired keys still decrypt.
 */

/** The key file created in DATA_DIR when OIDC_TOKEN_ENCRYPTION_KEY is not set. */
export const KEY_FILE = 'oidc-token-encryption.key'
/** Retired keys, still accepted for decryption: `oidc-token-encryption.<label>.key` in DATA_DIR. */
export const RETIRED_KEY_FILE = /^oidc-token-encryption\.[^/]+\.key$/

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

/**
 * The current key is OIDC_TOKEN_ENCRYPTION_KEY, else DATA_DIR/oidc-token-encryption.key (created on
 * first start, mode 0600). Retired keys are read from DATA_DIR so that families encrypted before a key
 * change keep working until they end; the key file also counts as retired once the variable is set.
 */
export async function loadKeyRing (config: Pick<Config, 'OIDC_TOKEN_ENCRYPTION_KEY' | 'DATA_DIR'>): Promise<{ ring: KeyRing, created?: string }> {
  const dir = resolve(config.DATA_DIR)
  const retired: Buffer[] = []
  let names: string[] = []
  try {
    names = await readdir(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  for (const name of names.filter((n) => RETIRED_KEY_FILE.test(n)).sort()) {
    retired.push(parseKey(await readFile(join(dir, name), 'utf8'), join(dir, name)))
  }

  const keyPath = join(dir, KEY_FILE)
  if (config.OIDC_TOKEN_ENCRYPTION_KEY !== '') {
    if (names.includes(KEY_FILE)) retired.push(parseKey(await readFile(keyPath, 'utf8'), keyPath))
    return { ring: keyRingOf(parseKey(config.OIDC_TOKEN_ENCRYPTION_KEY, 'OIDC_TOKEN_ENCRYPTION_KEY'), retired) }
  }
  if (names.includes(KEY_FILE)) return { ring: keyRingOf(parseKey(await readFile(keyPath, 'utf8'), keyPath), retired) }

  await mkdir(dir, { recursive: true, mode: 0o700 })
  try {
    // `wx`: when two instances share DATA_DIR and start together, the second one reads the first one's key.
    await writeFile(keyPath, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 })
    return { ring: keyRingOf(parseKey(await readFile(keyPath, 'utf8'), keyPath), retired), created: keyPath }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return { ring: keyRingOf(parseKey(await readFile(keyPath, 'utf8'), keyPath), retired) }
  }
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
