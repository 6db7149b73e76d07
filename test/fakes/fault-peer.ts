import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * A peer (engine, Koji, Golbat, geocoder, master file, chat platform) that fails in one way at a time,
 * for any path and method:
 * - `stopped`: nothing listens on its port any more (connection refused);
 * - `hanging`: takes the request and never answers;
 * - `garbage`: HTTP 200 with a body that is not JSON;
 * - `html500`: HTTP 500 with a proxy's HTML error page;
 * - `refused`: HTTP 401, as for a wrong shared secret;
 * - `slowBody`: the status and headers at once, then one byte a second;
 * - `oversize`: HTTP 200, a valid-looking JSON array of `oversizeBytes`, streamed from one reused
 *   64 KiB chunk so the fake itself never holds more than that;
 * - `ok`: hands the request to `healthy` (a real fake), so one address can switch between working and failing.
 */
export type FaultMode = 'stopped' | 'hanging' | 'garbage' | 'html500' | 'refused' | 'slowBody' | 'oversize'
export const FAULT_MODES: readonly FaultMode[] = ['stopped', 'hanging', 'garbage', 'html500', 'refused', 'slowBody', 'oversize']

export interface FaultPeer {
  readonly url: string
  readonly mode: FaultMode | 'ok'
  /** Where `ok` forwards to (a working fake of the same peer). */
  healthy: string
  /** Switches the failure (drops open connections; `stopped` closes the port, any other mode reopens it). */
  setMode(mode: FaultMode | 'ok'): Promise<void>
  /** Size of the `oversize` answer. */
  oversizeBytes: number
  /** Requests received (not counting `stopped`, which receives none). */
  readonly hits: number
  /**
   * Resolves once no request is open (each answered, or dropped by its client), or after `ms`: a read
   * the service shares between callers must end before the next caller's own request is counted.
   */
  idle(ms?: number): Promise<void>
  /** Bytes of the `oversize` answer actually written before the client dropped the connection. */
  readonly oversizeWritten: number
  /** Whether the client closed the connection of the last `oversize` answer before its end. */
  readonly oversizeAborted: boolean
  close(): Promise<void>
}

const CHUNK = Buffer.alloc(64 * 1024, '1,')

export async function startFaultPeer (options: { mode?: FaultMode | 'ok', oversizeBytes?: number, healthy?: string } = {}): Promise<FaultPeer> {
  const state = { healthy: options.healthy ?? '', mode: options.mode ?? 'ok' as FaultMode | 'ok', oversizeBytes: options.oversizeBytes ?? 64 * 1024 * 1024, hits: 0, open: 0, written: 0, aborted: false }
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()

  function oversize (res: ServerResponse): void {
    state.written = 0
    state.aborted = false
    res.writeHead(200, { 'content-type': 'application/json' })
    res.on('close', () => { if (!res.writableFinished) state.aborted = true })
    res.write('[')
    const pump = (): void => {
      while (state.written < state.oversizeBytes) {
        if (res.destroyed) return
        state.written += CHUNK.length
        if (!res.write(CHUNK)) {
          res.once('drain', pump)
          return
        }
      }
      res.end('1]')
    }
    pump()
  }

  async function forward (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length').map(([k, v]) => [k, String(v)]))
    const answer = await fetch(`${state.healthy}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) })
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
    res.end(Buffer.from(await answer.arrayBuffer()))
  }

  const server = createServer((req, res) => {
    state.hits++
    state.open++
    res.on('close', () => { state.open-- })
    switch (state.mode) {
      case 'ok':
        forward(req, res).catch(() => { res.destroy() })
        return
      case 'hanging':
        return
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"status":"ok", this is not json')
        return
      case 'html500':
        res.writeHead(500, { 'content-type': 'text/html' })
        res.end('<html><head><title>500 Internal Server Error</title></head><body><center><h1>500 Internal Server Error</h1></center><hr><center>nginx</center></body></html>')
        return
      case 'refused':
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end('{"status":"authError","reason":"incorrect or missing api secret"}')
        return
      case 'slowBody': {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{')
        const timer = setInterval(() => { res.write(' ') }, 1000)
        timers.add(timer)
        res.on('close', () => { clearInterval(timer); timers.delete(timer) })
        return
      }
      case 'oversize':
        oversize(res)
        return
      case 'stopped':
        // Not reached: `stopped` closes the listening socket.
        res.destroy()
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const dropConnections = () => {
    for (const timer of timers) clearInterval(timer)
    timers.clear()
    for (const socket of sockets) socket.destroy()
  }
  async function listen (on: boolean): Promise<void> {
    if (on === server.listening) return
    if (on) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    else {
      dropConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  let pending = Promise.resolve()
  if (state.mode === 'stopped') pending = listen(false)

  return {
    url: `http://127.0.0.1:${port}`,
    get mode () { return state.mode },
    get healthy () { return state.healthy },
    set healthy (url) { state.healthy = url },
    async setMode (mode) {
      state.mode = mode
      dropConnections()
      pending = pending.then(() => listen(mode !== 'stopped'))
      await pending
      // The service under test runs in this process: its pool learns of the dropped connections once the
      // event loop has read their close, else its next call goes out on one and fails as unreachable.
      await new Promise((resolve) => setTimeout(resolve, 20))
    },
    get oversizeBytes () { return state.oversizeBytes },
    set oversizeBytes (bytes) { state.oversizeBytes = bytes },
    get hits () { return state.hits },
    async idle (ms = 3000) {
      const until = Date.now() + ms
      while (state.open > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10))
    },
    get oversizeWritten () { return state.written },
    get oversizeAborted () { return state.aborted },
    async close () {
      await pending
      dropConnections()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
