import fp from 'fastify-plugin'
import { compile } from '@fastify/proxy-addr'
import type { FastifyRequest } from 'fastify'
import type { Config } from './config.js'

/**
 * Which peers may speak for the client through X-Forwarded-For / X-Forwarded-Proto: only the declared
 * proxies and networks. Given to Fastify as `trustProxy`, so `request.ip` and `request.protocol` are
 * already resolved by these rules everywhere (rate limits included) and a forged header from anyone
 * else changes nothing.
 */
export function trustedProxies (config: Pick<Config, 'PROXY_KNOWN_PROXIES' | 'PROXY_KNOWN_NETWORKS'>): (address: string, hop: number) => boolean {
  const entries = [...config.PROXY_KNOWN_PROXIES, ...config.PROXY_KNOWN_NETWORKS]
  if (entries.length === 0) return () => false
  const trusted = compile(entries)
  return (address, hop) => trusted(address, hop)
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The origin browsers reach this service at: PUBLIC_URL, else the (trusted) request scheme and host. */
    publicOrigin: (request: FastifyRequest) => string
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const isTrusted = trustedProxies(config)
  let warned = false

  fastify.decorate('publicOrigin', (request: FastifyRequest) =>
    config.PUBLIC_URL ?? `${request.protocol}://${request.host}`)

  if (config.PUBLIC_URL !== undefined) return
  // An untrusted peer sending X-Forwarded-Proto is almost always an undeclared reverse proxy: callback
  // URLs would be built with http:// (which providers refuse) and every user would share its rate-limit
  // bucket. Say so once, with the fix, instead of on every request.
  fastify.addHook('onRequest', async (request) => {
    if (warned || request.headers['x-forwarded-proto'] === undefined) return
    if (isTrusted(request.socket.remoteAddress ?? '', 0)) return
    warned = true
    request.log.warn({ peer: request.socket.remoteAddress },
      'X-Forwarded-Proto received from an untrusted peer and ignored: declare the reverse proxy in PROXY_KNOWN_PROXIES or PROXY_KNOWN_NETWORKS, or set PUBLIC_URL, otherwise redirect URIs use http:// and all users share one rate-limit bucket')
  })
}, { name: 'proxy-trust', fastify: '5.x', dependencies: ['config'] })
