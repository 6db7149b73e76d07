import type { InjectOptions, LightMyRequestResponse } from 'fastify'

/**
 * Drives a sign-in the way a browser does, knowing nothing of the service's internals: GET the
 * service's login URL, follow redirects through the provider with a cookie jar per origin, and call
 * the service's callback with the cookies the service set. Requests to the service go through
 * Fastify's `inject` when given, otherwise over HTTP; requests elsewhere always go over HTTP.
 */

/** One response of the flow, the same shape whether it came from `inject` or from `fetch`. */
export interface FlowResponse {
  /** The URL that was requested. */
  url: string
  status: number
  headers: Headers
  /** The Location header resolved against `url`. */
  location?: string
  body: string
}

/** name → value per origin. Paths and attributes are ignored: a flow is sequential and short. */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>()

  /** Applies Set-Cookie headers; `Max-Age=0` or a past `Expires` deletes the cookie. */
  store (origin: string, setCookies: readonly string[]): void {
    const cookies = this.cookiesOf(origin)
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      if (eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      if (isExpiry(attributes)) cookies.delete(name)
      else cookies.set(name, pair.slice(eq + 1).trim())
    }
  }

  /** A copy of the cookies of an origin. */
  get (origin: string): Map<string, string> {
    return new Map(this.byOrigin.get(origin))
  }

  header (origin: string): string | undefined {
    return cookieHeader(this.byOrigin.get(origin))
  }

  private cookiesOf (origin: string): Map<string, string> {
    let cookies = this.byOrigin.get(origin)
    if (cookies === undefined) {
      cookies = new Map()
      this.byOrigin.set(origin, cookies)
    }
    return cookies
  }
}

export type ServiceInject = (opts: InjectOptions) => Promise<LightMyRequestResponse>

/** What the callback request will be; returned by `beforeCallback` to tamper with it. */
export interface CallbackRequest {
  url: URL | string
  cookies: ReadonlyMap<string, string>
}

export interface FollowLoginOptions {
  /** Fastify's inject, e.g. `(o) => app.inject(o)`; requests to the service origin then go through it. */
  serviceInject?: ServiceInject
  /**
   * The service's origin. Required without `serviceInject`; with it, the origin the service is
   * addressed as (default `http://localhost`), sent as the Host header so that the service builds
   * its redirect URI from it. A service configured with PUBLIC_URL needs that origin here, since the
   * provider sends the browser back there.
   */
  serviceUrl?: string
  /** Default `/api/auth/oidc/login`. */
  startPath?: string
  /** Where the provider sends the browser back to; default `/api/auth/oidc/callback`. */
  callbackPath?: string
  /** Extra headers on every request to the service (e.g. X-Forwarded-Proto). */
  headers?: Record<string, string>
  /** Reuse a jar to keep a provider session (or service cookies) from an earlier flow. */
  jar?: CookieJar
  /** Sees the callback URL and the service cookies, and may return altered ones. */
  beforeCallback?: (url: URL, cookies: Map<string, string>) => CallbackRequest | Promise<CallbackRequest>
  /** Default 20. */
  maxRedirects?: number
}

export interface LoginFlow {
  loginResponse: FlowResponse
  /** Every response on the way through the provider, in order. */
  providerRedirects: FlowResponse[]
  /** The callback URL as called (after `beforeCallback`); absent when the flow never got there. */
  callbackUrl?: string
  callbackResponse?: FlowResponse
  /** The last response: the callback's, or where the flow stopped (an error page, a redirect elsewhere). */
  finalResponse: FlowResponse
  /** Location of the final response. */
  location?: string
  /** Fragment of `location` (`token=…`, `error=…`); empty when there is none. */
  fragment: URLSearchParams
  jar: CookieJar
  /** Sends the callback request again, same URL and cookies. */
  replayCallback(): Promise<FlowResponse>
}

export async function followLogin (opts: FollowLoginOptions): Promise<LoginFlow> {
  if (opts.serviceInject === undefined && opts.serviceUrl === undefined) {
    throw new TypeError('followLogin needs serviceInject or serviceUrl')
  }
  const serviceOrigin = new URL(opts.serviceUrl ?? 'http://localhost').origin
  const callbackPath = opts.callbackPath ?? '/api/auth/oidc/callback'
  const maxRedirects = opts.maxRedirects ?? 20
  const jar = opts.jar ?? new CookieJar()

  const callService = async (url: URL, cookies: string | undefined): Promise<FlowResponse> => {
    const headers: Record<string, string> = { ...opts.headers, ...(cookies !== undefined && { cookie: cookies }) }
    const response = opts.serviceInject === undefined
      ? await httpGet(url, headers)
      : fromInject(url, await opts.serviceInject({
        method: 'GET',
        url: url.pathname + url.search,
        headers: { host: url.host, ...headers },
      }))
    jar.store(serviceOrigin, response.headers.getSetCookie())
    return response
  }

  const loginResponse = await callService(new URL(opts.startPath ?? '/api/auth/oidc/login', serviceOrigin),
    jar.header(serviceOrigin))
  const providerRedirects: FlowResponse[] = []
  let last = loginResponse

  for (let hop = 0; last.location !== undefined && hop < maxRedirects; hop++) {
    const next = new URL(last.location)
    if (next.origin === serviceOrigin) {
      if (next.pathname !== callbackPath) break
      const serviceCookies = jar.get(serviceOrigin)
      const chosen = opts.beforeCallback
        ? await opts.beforeCallback(next, serviceCookies)
        : { url: next, cookies: serviceCookies }
      const callbackUrl = new URL(chosen.url, serviceOrigin)
      const cookies = cookieHeader(chosen.cookies)
      const callbackResponse = await callService(callbackUrl, cookies)
      return {
        ...result(loginResponse, providerRedirects, callbackResponse, jar),
        callbackUrl: callbackUrl.href,
        callbackResponse,
        replayCallback: () => callService(callbackUrl, cookies),
      }
    }
    const cookie = jar.header(next.origin)
    const response = await httpGet(next, cookie === undefined ? {} : { cookie })
    jar.store(next.origin, response.headers.getSetCookie())
    providerRedirects.push(response)
    last = response
  }
  return {
    ...result(loginResponse, providerRedirects, last, jar),
    replayCallback: () => Promise.reject(new Error('the flow never reached the callback')),
  }
}

function result (
  loginResponse: FlowResponse,
  providerRedirects: FlowResponse[],
  finalResponse: FlowResponse,
  jar: CookieJar
): Omit<LoginFlow, 'replayCallback'> {
  const { location } = finalResponse
  return {
    loginResponse,
    providerRedirects,
    finalResponse,
    ...(location !== undefined && { location }),
    fragment: new URLSearchParams(location === undefined ? '' : new URL(location).hash.slice(1)),
    jar,
  }
}

async function httpGet (url: URL, headers: Record<string, string>): Promise<FlowResponse> {
  const response = await fetch(url, { redirect: 'manual', headers })
  return flowResponse(url, response.status, response.headers, await response.text())
}

function fromInject (url: URL, response: LightMyRequestResponse): FlowResponse {
  const headers = new Headers()
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item))
  }
  return flowResponse(url, response.statusCode, headers, response.body)
}

function flowResponse (url: URL, status: number, headers: Headers, body: string): FlowResponse {
  const location = headers.get('location')
  return {
    url: url.href,
    status,
    headers,
    ...(status >= 300 && status < 400 && location !== null && { location: new URL(location, url).href }),
    body,
  }
}

function cookieHeader (cookies: ReadonlyMap<string, string> | undefined): string | undefined {
  if (cookies === undefined || cookies.size === 0) return undefined
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ')
}

function isExpiry (attributes: string[]): boolean {
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=', 2).map((s) => s.trim())
    if (key.toLowerCase() === 'max-age' && Number(value) <= 0) return true
    if (key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now()) return true
  }
  return false
}
