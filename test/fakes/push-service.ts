import { spawnSync } from 'node:child_process'
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { decodeJwt, importJWK, jwtVerify } from 'jose'

/**
 * A Web Push service on https://127.0.0.1 (RFC 8030): each subscribed "browser" is a P-256 key pair and
 * auth secret made here, and every message posted to its endpoint is decrypted with them (RFC 8291,
 * aes128gcm, RFC 8188) and its VAPID token checked (RFC 8292), so a test sees exactly what a phone would.
 */

const b64url = (bytes: Buffer) => bytes.toString('base64url')
const hkdf = (salt: Buffer, ikm: Buffer, info: Buffer, length: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, length))

export interface FakeBrowser {
  id: string
  subscription: { endpoint: string, keys: { p256dh: string, auth: string } }
  decrypt: (body: Buffer) => string
}

/** A browser's push keys, and the decryption of a message sent to them (RFC 8291 section 3.4). */
function makeBrowser (id: string, endpoint: string): FakeBrowser {
  const ecdh = createECDH('prime256v1')
  const uaPublic = ecdh.generateKeys()
  const authSecret = randomBytes(16)
  return {
    id,
    subscription: { endpoint, keys: { p256dh: b64url(uaPublic), auth: b64url(authSecret) } },
    decrypt (body) {
      const salt = body.subarray(0, 16)
      const recordSize = body.readUInt32BE(16)
      const idLength = body.readUInt8(20)
      const asPublic = body.subarray(21, 21 + idLength)
      const record = body.subarray(21 + idLength)
      if (record.length > recordSize) throw new Error('more than one record')
      const secret = ecdh.computeSecret(asPublic)
      const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic])
      const ikm = hkdf(authSecret, secret, keyInfo, 32)
      const cek = hkdf(salt, ikm, Buffer.from('Content-Encoding: aes128gcm\0'), 16)
      const nonce = hkdf(salt, ikm, Buffer.from('Content-Encoding: nonce\0'), 12)
      const decipher = createDecipheriv('aes-128-gcm', cek, nonce)
      decipher.setAuthTag(record.subarray(record.length - 16))
      const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()])
      // The last record ends with the delimiter 2 and optional zero padding.
      let end = padded.length - 1
      while (end >= 0 && padded[end] === 0) end--
      if (padded[end] !== 2) throw new Error('no last-record delimiter')
      return padded.subarray(0, end).toString('utf8')
    }
  }
}

export interface ReceivedPush {
  browser: string
  ttl: number
  urgency: string | undefined
  topic: string | undefined
  /** The decrypted payload. */
  payload: string
  /** The VAPID token's claims, verified with the key the request names (`k=`). */
  vapid: { aud: string, sub: string, exp: number, publicKey: string }
  status: number
}

type Answer = { status: number, headers?: Record<string, string> }

/** The application server keys met so far, imported once (a site signs every message with the same one). */
const verifyingKeys = new Map<string, ReturnType<typeof importJWK>>()
function verifyingKey (publicKey: string): ReturnType<typeof importJWK> {
  let key = verifyingKeys.get(publicKey)
  if (key === undefined) {
    const raw = Buffer.from(publicKey, 'base64url')
    key = importJWK({ kty: 'EC', crv: 'P-256', x: b64url(raw.subarray(1, 33)), y: b64url(raw.subarray(33, 65)) }, 'ES256')
    verifyingKeys.set(publicKey, key)
  }
  return key
}

async function checkVapid (headers: IncomingHttpHeaders): Promise<ReceivedPush['vapid']> {
  const match = /^vapid t=([^,]+),\s*k=([A-Za-z0-9_-]+)$/.exec(headers.authorization ?? '')
  if (match === null) throw new Error(`no VAPID authorization: ${headers.authorization ?? ''}`)
  const [, token, publicKey] = match as unknown as [string, string, string]
  await jwtVerify(token, await verifyingKey(publicKey), { algorithms: ['ES256'] })
  const claims = decodeJwt(token)
  return { aud: String(claims.aud), sub: String(claims.sub), exp: Number(claims.exp), publicKey }
}

export async function startPushService (certificateDir: string) {
  const browsers = new Map<string, FakeBrowser>()
  const received: ReceivedPush[] = []
  const refused: string[] = []
  /** Answers for the next requests, first in first out; then 201. */
  const answers: Answer[] = []
  const server = createServer({ key: readFileSync(join(certificateDir, 'key.pem')), cert: readFileSync(join(certificateDir, 'cert.pem')) }, (request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      (async () => {
        const id = /^\/push\/([\w-]+)$/.exec(request.url ?? '')?.[1]
        const browser = id === undefined ? undefined : browsers.get(id)
        if (browser === undefined || request.method !== 'POST') return response.writeHead(404).end()
        try {
          if (request.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${request.headers['content-encoding'] ?? ''}`)
          const vapid = await checkVapid(request.headers)
          const payload = browser.decrypt(Buffer.concat(chunks))
          const answer = answers.shift() ?? { status: 201 }
          received.push({
            browser: browser.id,
            ttl: Number(request.headers.ttl),
            urgency: request.headers.urgency as string | undefined,
            topic: request.headers.topic as string | undefined,
            payload,
            vapid,
            status: answer.status
          })
          response.writeHead(answer.status, answer.headers).end()
        } catch (error) {
          refused.push((error as Error).message)
          response.writeHead(400).end()
        }
      })().catch(() => response.writeHead(500).end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `https://127.0.0.1:${port}`
  return {
    origin,
    /** What PUSH_ENDPOINT_HOSTS needs to allow this loopback service. */
    host: `127.0.0.1:${port}`,
    received,
    /** Messages that failed decryption or the VAPID check, with the reason. */
    refused,
    /** A new subscribed browser. */
    browser (id: string = randomBytes(6).toString('hex')): FakeBrowser {
      const browser = makeBrowser(id, `${origin}/push/${id}`)
      browsers.set(id, browser)
      return browser
    },
    /** Queues the status (and headers) of the next answers. */
    answerNext (...next: Answer[]) { answers.push(...next) },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

export type FakePushService = Awaited<ReturnType<typeof startPushService>>

/**
 * Runs `casesFile` in a child process that trusts a certificate made here for 127.0.0.1 (through
 * NODE_EXTRA_CA_CERTS, the way an operator trusts a private push service; Node reads it only at start),
 * with the same loader and TAP output, and exits with its code. In that child, PUSH_SERVICE_CERT_DIR
 * names the folder with key.pem and cert.pem.
 */
export function runTrustingPushService (casesFile: URL): never {
  const dir = mkdtempSync(join(tmpdir(), 'push-service-'))
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (made.status !== 0) throw new Error('openssl could not make the push service certificate')
  const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(casesFile)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'), PUSH_SERVICE_CERT_DIR: dir }
  })
  rmSync(dir, { recursive: true, force: true })
  process.exit(run.status ?? 1)
}
