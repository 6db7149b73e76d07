import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Koji, the geofence server, on 127.0.0.1: the four routes the service uses, with the shapes of
 * poracleweb-backend.md section 6. Fences are stored as Koji stores them (GeoJSON, [lon, lat]) with a
 * parent id and a project list; the Poracle-format route turns them into [lat, lon] paths of the named
 * project. Every route wants `Authorization: Bearer <token>` when a token is configured.
 */

export interface KojiFence {
  id: number
  name: string
  /** Shown as the `properties.name` of the area route; regions use it as their display name. */
  displayName?: string
  /** Id of the region this fence belongs to. */
  parent?: number
  /** Projects (by name) the fence is exported to. */
  projects: string[]
  /** [lat, lon] ring; stored as [lon, lat] GeoJSON like Koji. */
  path: Array<[number, number]>
  description?: string
  color?: string
  properties?: Record<string, unknown>
}

/** `down`: 500; `garbage`: 200 with a body that is not JSON; `hang`: never answers (until close). */
export type KojiFailure = 'down' | 'garbage' | 'hang'

export interface KojiFake {
  readonly url: string
  readonly token: string
  /** Project name (KOJI_PROJECT_NAME) and id (KOJI_PROJECT_ID) the fake exports to. */
  readonly project: { name: string, id: number }
  fences: KojiFence[]
  /** Bodies of `save-koji` calls, as received. */
  readonly saves: unknown[]
  /** Paths requested, in order. */
  readonly requests: string[]
  fail(mode: KojiFailure | null): void
  delay(ms: number): void
  close(): Promise<void>
}

export async function startKojiFake (options: { token?: string, project?: { name: string, id: number }, fences?: KojiFence[] } = {}): Promise<KojiFake> {
  const token = options.token ?? 'koji-token'
  const project = options.project ?? { name: 'poracle', id: 1 }
  let failure: KojiFailure | null = null
  let delayMs = 0
  const saves: unknown[] = []
  const requests: string[] = []
  const hanging = new Set<ServerResponse>()

  const state = { fences: options.fences ?? [] }
  const feature = (f: KojiFence) => ({
    type: 'Feature',
    properties: { ...f.properties, name: f.displayName ?? f.name, __name: f.name, __id: f.id },
    geometry: { type: 'Polygon', coordinates: [[...f.path, ...f.path.slice(0, 1)].map(([lat, lon]) => [lon, lat])] }
  })
  const send = (res: ServerResponse, status: number, data: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ message: status === 200 ? 'Success' : 'Error', status: status === 200 ? 'ok' : 'error', status_code: status, data }))
  }

  async function handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://koji')
    requests.push(url.pathname)
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
    if (failure === 'hang') { hanging.add(res); return }
    if (failure === 'down') return send(res, 500, null)
    if (failure === 'garbage') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('<html>oops'); return }
    if (token !== '' && req.headers.authorization !== `Bearer ${token}`) return send(res, 401, null)

    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
    if (req.method === 'GET' && url.pathname === '/api/v1/geofence/reference') {
      return send(res, 200, state.fences.map((f) => ({ id: f.id, name: f.name, ...(f.parent !== undefined ? { parent: f.parent } : {}) })))
    }
    if (req.method === 'GET' && parts.length === 5 && parts[3] === 'area') {
      const fence = state.fences.find((f) => f.name === parts[4])
      return fence ? send(res, 200, feature(fence)) : send(res, 404, null)
    }
    if (req.method === 'GET' && parts.length === 5 && parts[3] === 'poracle') {
      if (parts[4] !== project.name) return send(res, 200, [])
      return send(res, 200, state.fences.filter((f) => f.projects.includes(project.name)).map((f) => ({
        name: f.name,
        path: f.path,
        ...(f.description !== undefined ? { description: f.description } : {}),
        ...(f.color !== undefined ? { color: f.color } : {})
      })))
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/geofence/save-koji') {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      let body: { area?: { features?: Array<{ geometry?: { coordinates?: number[][][] }, properties?: Record<string, unknown> }> } }
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { return send(res, 400, null) }
      saves.push(body)
      for (const f of body.area?.features ?? []) {
        const props = f.properties ?? {}
        const name = String(props.__name ?? props.name ?? '')
        const projects = (Array.isArray(props.__projects) ? props.__projects : []).map((id) => (Number(id) === project.id ? project.name : String(id)))
        const path = (f.geometry?.coordinates?.[0] ?? []).map(([lon, lat]) => [lat, lon] as [number, number]).slice(0, -1)
        const existing = state.fences.find((x) => x.name === name)
        const parent = typeof props.__parent === 'number' ? props.__parent : undefined
        const fields = { projects, path, properties: props, ...(parent !== undefined ? { parent } : {}) }
        if (existing) Object.assign(existing, fields)
        else state.fences.push({ id: Math.max(0, ...state.fences.map((x) => x.id)) + 1, name, ...fields })
      }
      return send(res, 200, null)
    }
    return send(res, 404, null)
  }

  const server = createServer((req, res) => { handle(req, res).catch(() => send(res, 500, null)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    project,
    get fences () { return state.fences },
    set fences (value) { state.fences = value },
    saves,
    requests,
    fail (mode) { failure = mode; if (mode !== 'hang') { for (const r of hanging) r.destroy(); hanging.clear() } },
    delay (ms) { delayMs = ms },
    async close () {
      for (const r of hanging) r.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
