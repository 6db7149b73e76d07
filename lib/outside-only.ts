import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP } from 'node:net'
import { Agent } from 'undici'

/**
 * Addresses no fetch of an admin-given address may reach: loopback, "this network", private (RFC 1918),
 * carrier-grade NAT, link-local (cloud metadata at 169.254.169.254), benchmark, multicast and reserved
 * ranges; for IPv6 the unspecified and loopback addresses, unique-local (fc00::/7), link-local and
 * multicast. An IPv4-mapped IPv6 address is judged by its IPv4 part.
 */
const INSIDE = new BlockList()
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) INSIDE.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) INSIDE.addSubnet(network, prefix, 'ipv6')

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

/** Whether an IP address is one of the inside ranges above. */
export function isInsideAddress (address: string): boolean {
  const mapped = MAPPED_V4.exec(address)?.[1]
  if (mapped !== undefined) return INSIDE.check(mapped, 'ipv4')
  const family = isIP(address)
  return family === 4 ? INSIDE.check(address, 'ipv4') : family === 6 ? INSIDE.check(address, 'ipv6') : false
}

/** A fetch refused because its host is (or resolves to) an inside address the operator did not allow. */
export class InsideAddressRefused extends Error {
  constructor () {
    super('the address is on a private or local network')
    this.name = 'InsideAddressRefused'
  }
}

/** Whether an error, or one of its causes, is the refusal. */
export function isInsideRefusal (error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof InsideAddressRefused) return true
  return false
}

/**
 * Fetches of addresses an admin types into the service (the icon-set check) stay outside: a dispatcher
 * whose connections refuse inside addresses after resolving the name, on the very addresses it connects
 * to (a name that resolves to 127.0.0.1, or changes its answer between a check and the connection, is
 * refused too), unless the host is one of `allowedHosts` (FETCH_ALLOWED_HOSTS). Callers pass
 * `maxRedirections: 0`, so a redirect cannot lead elsewhere; `refuseInsideLiteral` covers IP literals,
 * which are connected to without a lookup.
 */
export function outsideOnly (allowedHosts: string[]) {
  const allowed = new Set(allowedHosts.map((host) => host.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter((host) => host !== ''))
  const isAllowed = (hostname: string) => allowed.has(hostname.toLowerCase().replace(/^\[|\]$/g, ''))

  const dispatcher = new Agent({
    connect: {
      lookup (hostname, options, callback) {
        dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
          const answer = callback as (error: Error | null, address: string | LookupAddress[], family?: number) => void
          if (error !== null) return answer(error, [])
          if (!isAllowed(hostname) && addresses.some((a) => isInsideAddress(a.address))) return answer(new InsideAddressRefused(), [])
          const [first] = addresses
          if ((options as { all?: boolean }).all === true) return answer(null, addresses)
          if (first === undefined) return answer(new InsideAddressRefused(), [])
          answer(null, first.address, first.family)
        })
      }
    }
  })

  return {
    dispatcher,
    /** Throws InsideAddressRefused for an inside IP literal the operator did not allow. */
    refuseInsideLiteral (url: URL): void {
      const host = url.hostname.replace(/^\[|\]$/g, '')
      if (isIP(host) !== 0 && isInsideAddress(host) && !isAllowed(host)) throw new InsideAddressRefused()
    },
    close: () => dispatcher.close()
  }
}
