import fp from 'fastify-plugin'
import { compile } from '@fastify/proxy-addr'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../../schemas/config.js'

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
    /**
     * The origin redirects and callback URLs are built from: PUBLIC_URL; else the request's own origin
     * (its trusted scheme and its host) when that is one of CORS_ORIGIN, else the first CORS_ORIGIN.
     * Never an origin only a header names: Host and X-Forwarded-Host are the client's to choose.
     */
    publicOrigin: (request: FastifyRequest) => string
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const isTrusted = trustedProxies(config)
  let warned = false
  let refusedHost = false

  fastify.decorate('publicOrigin', (request: FastifyRequest) => {
    if (config.PUBLIC_URL !== undefined) return config.PUBLIC_URL
    const requested = `${request.protocol}://${request.host}`
    const fallback = config.CORS_ORIGIN[0]
    // Only a development setup may have no origin configured at all (see config.ts).
    if (fallback === undefined || config.CORS_ORIGIN.includes(requested)) return requested
    if (!refusedHost) {
      refusedHost = true
      request.log.warn({ requested, used: fallback },
        'a request named an origin that is neither PUBLIC_URL nor in CORS_ORIGIN: its redirects use the first CORS_ORIGIN instead (said once; set PUBLIC_URL to the public origin)')
    }
    return fallback
  })

  if (config.PUBLIC_URL !== undefined) return
  if (config.NODE_ENV !== 'development') {
    fastify.log.warn({ origins: config.CORS_ORIGIN },
      'PUBLIC_URL is not set: redirect and callback URLs use the CORS_ORIGIN origin a request arrives at, else the first one; set PUBLIC_URL to the public origin')
  }
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
