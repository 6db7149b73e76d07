import { createServer, type Server } from 'node:net'

/** A port held by a listening socket of this process until `release`, so nothing else is given it meanwhile. */
export interface HeldPort {
  port: number
  release: () => Promise<void>
}

export async function holdPort (): Promise<HeldPort> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { port, release: async () => { await new Promise((resolve) => server.close(resolve)) } }
}

/**
 * A port nothing listens on right now. Only for what must be stopped at first (a Redis started later): any
 * process may be given the port meanwhile, so whatever can start at once takes a HeldPort instead.
 */
export async function freePort (): Promise<number> {
  const held = await holdPort()
  await held.release()
  return held.port
}
