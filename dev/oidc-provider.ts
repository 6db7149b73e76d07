import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ParameterizedContext } from 'koa'
import Provider, { type Configuration, type JWK } from 'oidc-provider'
import { oidcProviderEndpoints } from '../test/fakes/oidc-provider.js'

/**
 * A development identity provider: the real `oidc-provider` package on 127.0.0.1 with a plain sign-in
 * form for a few demo accounts (every account has the same demo password). It stands in for the
 * community's own provider in `npm run demo`; nothing in production loads it.
 */

export interface DemoAccount {
  /** What is typed into the form. */
  username: string
  /** The alarm engine's user id, sent as the `chat_id` claim (the service's identity claim). */
  engineId: string
  displayName: string
  role: 'admin' | 'member'
}

export interface DevOidcOptions {
  accounts: DemoAccount[]
  password: string
  clientId: string
  clientSecret: string
  redirectUri: string
  postLogoutRedirectUri: string
  /** Lifetime of the provider's access tokens in seconds. */
  accessTokenTtl: number
}

export interface DevOidcProvider {
  issuer: string
  authorizationUrl: string
  tokenUrl: string
  userinfoUrl: string
  endSessionUrl: string
  revocationUrl: string
  close: () => Promise<void>
}

type Ctx = ParameterizedContext

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

async function readForm (req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > 16_384) throw new Error('form too large')
    chunks.push(chunk as Buffer)
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
}

function formPage (uid: string, accounts: DemoAccount[], message: string | null, username = ''): string {
  const rows = accounts.map((a) => `<li><code>${escapeHtml(a.username)}</code> — ${escapeHtml(a.displayName)} (${a.role})</li>`).join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo identity provider · Sign in</title>
<style>
  body { font-family: system-ui, sans-serif; background: #eef1f5; color: #1b1f24; margin: 0; padding: 1rem; }
  main { max-width: 24rem; margin: 2rem auto; background: #fff; border: 1px solid #c9ced6; border-radius: 10px; padding: 1.25rem; }
  label { display: block; font-weight: 600; margin-top: 0.75rem; }
  input { width: 100%; box-sizing: border-box; min-height: 2.75rem; padding: 0.4rem; font: inherit; border: 1px solid #8a929c; border-radius: 8px; }
  button { margin-top: 1rem; min-height: 2.75rem; width: 100%; font: inherit; font-weight: 600; color: #fff; background: #5b21b6; border: 0; border-radius: 8px; }
  .error { background: #fdecec; color: #9b1c1c; padding: 0.5rem; border-radius: 8px; }
  .hint { color: #4f5863; font-size: 0.9rem; }
</style></head>
<body><main>
<h1>Demo identity provider</h1>
<p class="hint">A development stand-in for your community's sign-in provider.</p>
${message === null ? '' : `<p class="error" role="alert">${escapeHtml(message)}</p>`}
<form method="post" action="/interaction/${escapeHtml(uid)}">
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="username" required value="${escapeHtml(username)}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p class="hint">Demo accounts (password as printed by <code>npm run demo</code>):</p>
<ul class="hint">${rows}</ul>
</main></body></html>`
}

export async function startDevOidcProvider (options: DevOidcOptions): Promise<DevOidcProvider> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const byId = new Map(options.accounts.map((a) => [a.engineId, a]))

  const configuration: Configuration = {
    clients: [{
      client_id: options.clientId,
      client_secret: options.clientSecret,
      redirect_uris: [options.redirectUri],
      post_logout_redirect_uris: [options.postLogoutRedirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_post'
    }],
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' } as JWK] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    claims: { openid: ['sub', 'chat_id'], profile: ['name', 'preferred_username'] },
    features: { devInteractions: { enabled: false }, revocation: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    findAccount: (_ctx, id) => {
      const account = byId.get(id)
      return account && {
        accountId: id,
        claims: () => ({ sub: id, chat_id: account.engineId, preferred_username: account.displayName, name: account.displayName })
      }
    },
    // Refresh tokens for this one trusted client whenever it may refresh, without a consent prompt.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: options.accessTokenTtl, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 86400, Grant: 30 * 86400, RefreshToken: 30 * 86400 }
  }
  const provider = new Provider(issuer, configuration)

  // The sign-in form: GET shows it, POST checks it and finishes login and consent in one step.
  provider.use(async (ctx: Ctx, next) => {
    const match = /^\/interaction\/([^/]+)$/.exec(ctx.path)
    if (match === null) return await next()
    const uid = match[1] ?? ''
    const details = await provider.interactionDetails(ctx.req, ctx.res)
    if (ctx.method === 'GET') {
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = formPage(uid, options.accounts, null)
      return
    }
    if (ctx.method !== 'POST') return await next()
    const form = await readForm(ctx.req)
    const username = form.get('username') ?? ''
    const account = options.accounts.find((a) => a.username === username.trim().toLowerCase())
    if (account === undefined || form.get('password') !== options.password) {
      ctx.status = 401
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = formPage(uid, options.accounts, 'Unknown username or wrong password.', username)
      return
    }
    const grant = new provider.Grant({ accountId: account.engineId, clientId: String(details.params.client_id) })
    if (typeof details.params.scope === 'string') grant.addOIDCScope(details.params.scope)
    const grantId = await grant.save()
    ctx.respond = false
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account.engineId }, consent: { grantId } }, { mergeWithLastSubmission: false })
  })
  server.on('request', provider.callback())

  return {
    ...oidcProviderEndpoints(issuer),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
