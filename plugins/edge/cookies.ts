import { createHmac } from 'node:crypto'
import fp from 'fastify-plugin'
import cookie from '@fastify/cookie'

/** The cookie signing key: derived from JWT_SECRET, so operators have one secret fewer to manage. */
export const cookieSecret = (jwtSecret: string) => createHmac('sha256', jwtSecret).update('alarm-web cookie signing').digest('base64url')

/**
 * Signed cookies for the redirect sign-in flows (state and PKCE verifier). The API itself uses bearer
 * tokens only: no session cookie exists.
 * @see https://github.com/fastify/fastify-cookie
 */
export default fp(async (fastify) => {
  await fastify.register(cookie, { secret: cookieSecret(fastify.config.JWT_SECRET) })
}, { name: 'cookies', fastify: '5.x', dependencies: ['config'] })
