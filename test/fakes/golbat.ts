import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Golbat's pokemon availability route on 127.0.0.1 (`GET /api/pokemon/available`, header
 * `X-Golbat-Secret`), answering in one of the shapes the reference names: flat ids, `{ available }`,
 * or objects carrying an `id` (Golbat's own, with form and count).
 */
export type GolbatShape = 'flat' | 'wrapped' | 'objects'

export interface GolbatFake {
  readonly url: string
  readonly secret: string
  available: number[]
  shape: GolbatShape
  /** `down`: 500; `garbage`: 200 with a body that is not JSON. */
  fail(mode: 'down' | 'garbage' | null): void
  readonly calls: number
  close(): Promise<void>
}

export async function startGolbatFake (options: { secret?: string, available?: number[] } = {}): Promise<GolbatFake> {
  const secret = options.secret ?? 'golbat-secret'
  const state = { available: options.available ?? [], shape: 'objects' as GolbatShape, failure: null as 'down' | 'garbage' | null, calls: 0 }
  const send = (res: ServerResponse, status: number, body: string) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(body) }
  const server = createServer((req, res) => {
    state.calls++
    if (req.url !== '/api/pokemon/available' || req.method !== 'GET') return send(res, 404, '{"error":"not found"}')
    if (req.headers['x-golbat-secret'] !== secret) return send(res, 401, '{"error":"unauthorised"}')
    if (state.failure === 'down') return send(res, 500, '{"error":"internal"}')
    if (state.failure === 'garbage') return send(res, 200, 'not json')
    const ids = state.available
    const body = state.shape === 'flat' ? ids : state.shape === 'wrapped' ? { available: ids } : ids.map((id) => ({ id, form: 0, count: 3 }))
    return send(res, 200, JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    get available () { return state.available },
    set available (v) { state.available = v },
    get shape () { return state.shape },
    set shape (v) { state.shape = v },
    fail (mode) { state.failure = mode },
    get calls () { return state.calls },
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
