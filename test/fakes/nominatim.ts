import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Nominatim's search and reverse routes on 127.0.0.1, answering `format=json` as Nominatim documents it:
 * `/search` an array of places, `/reverse` one place, or HTTP 200 with `{ "error": "Unable to geocode" }`
 * where nothing is near (the open sea). Coordinates are strings, names are `display_name`, and
 * `addressdetails=1` adds an `address` object.
 */
export interface FakePlace {
  name: string
  lat: number
  lon: number
  /** The `address` object Nominatim adds with addressdetails=1. */
  address?: Record<string, string>
}

export interface NominatimRequest {
  path: string
  query: Record<string, string>
  headers: IncomingHttpHeaders
}

/** `down`: 500 with an HTML page; `garbage`: 200 text that is not JSON; `shape`: 200 JSON of the wrong shape; `hang`: no answer. */
export type NominatimFailure = 'down' | 'garbage' | 'shape' | 'hang'

export interface NominatimFake {
  readonly url: string
  places: FakePlace[]
  readonly requests: NominatimRequest[]
  fail(mode: NominatimFailure | null): void
  close(): Promise<void>
}

/** How far from a place a reverse lookup still names it (degrees; about 2 km). */
const REVERSE_REACH = 0.02

export async function startNominatimFake (options: { places?: FakePlace[] } = {}): Promise<NominatimFake> {
  const state = { places: options.places ?? [], failure: null as NominatimFailure | null }
  const requests: NominatimRequest[] = []
  const hanging = new Set<ServerResponse>()
  let osmId = 1000

  const send = (res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type })
    res.end(body)
  }
  const json = (place: FakePlace, details: boolean) => ({
    place_id: ++osmId,
    licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
    osm_type: 'way',
    osm_id: osmId,
    lat: String(place.lat),
    lon: String(place.lon),
    class: 'place',
    type: 'house',
    importance: 0.5,
    display_name: place.name,
    ...(details ? { address: place.address ?? { country: 'United Kingdom', country_code: 'gb' } } : {}),
    boundingbox: [String(place.lat - 0.001), String(place.lat + 0.001), String(place.lon - 0.001), String(place.lon + 0.001)]
  })

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://nominatim.invalid')
    const query = Object.fromEntries(url.searchParams)
    requests.push({ path: url.pathname, query, headers: req.headers })
    if (state.failure === 'hang') {
      hanging.add(res)
      return
    }
    if (state.failure === 'down') return send(res, 500, '<html><body>Internal Server Error</body></html>', 'text/html')
    if (state.failure === 'garbage') return send(res, 200, '<html>not json')
    if (state.failure === 'shape') return send(res, 200, JSON.stringify({ results: 'none' }))
    const details = query.addressdetails === '1'
    if (url.pathname === '/search') {
      const words = (query.q ?? '').toLowerCase().split(/\s+/).filter((w) => w !== '')
      const limit = Math.min(Number(query.limit ?? 10), 40)
      const found = state.places.filter((p) => words.length > 0 && words.every((w) => p.name.toLowerCase().includes(w))).slice(0, limit)
      return send(res, 200, JSON.stringify(found.map((p) => json(p, details))))
    }
    if (url.pathname === '/reverse') {
      const lat = Number(query.lat)
      const lon = Number(query.lon)
      if (!Number.isFinite(lat) || !Number.isFinite(lon)) return send(res, 400, JSON.stringify({ error: { code: 400, message: 'Parameter lat/lon missing' } }))
      const near = state.places
        .map((p) => ({ p, d: Math.hypot(p.lat - lat, p.lon - lon) }))
        .filter(({ d }) => d <= REVERSE_REACH)
        .sort((a, b) => a.d - b.d)[0]
      return send(res, 200, JSON.stringify(near === undefined ? { error: 'Unable to geocode' } : json(near.p, details)))
    }
    return send(res, 404, '<html><body>Not Found</body></html>', 'text/html')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get places () { return state.places },
    set places (v) { state.places = v },
    requests,
    fail (mode) {
      state.failure = mode
      if (mode !== 'hang') {
        for (const res of hanging) res.destroy()
        hanging.clear()
      }
    },
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
