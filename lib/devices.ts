import { isIPv4, isIPv6 } from 'node:net'

/** Browsers by the token that names them, most specific first (Edge and Opera also say "Chrome"). */
const BROWSERS: Array<[RegExp, BrowserFamily]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrome\/|\bCriOS\//, 'Chrome'],
  [/\bSafari\//, 'Safari']
]
/** The browser families a device label can start with. */
export const BROWSER_FAMILIES = ['Edge', 'Opera', 'Samsung Internet', 'Firefox', 'Chrome', 'Safari'] as const
export type BrowserFamily = typeof BROWSER_FAMILIES[number]
const SYSTEMS: Array<[RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b|\biPad\b|\biPod\b/, 'iOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux']
]

/**
 * A short label for a device from its User-Agent ("Firefox on Android"), or null when nothing is
 * recognised. A label for people, not a fingerprint: only the browser family and the system.
 */
export function deviceLabel (userAgent: string | null | undefined): string | null {
  if (userAgent === null || userAgent === undefined || userAgent === '') return null
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1]
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1]
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`
  return browser ?? system ?? null
}

/** The network an address belongs to, coarse enough to show a person: the /24 of IPv4, the /48 of IPv6. */
export function addressNetwork (address: string | null | undefined): string | null {
  if (address === null || address === undefined) return null
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  const ip = mapped ?? address
  if (isIPv4(ip)) return `${ip.split('.').slice(0, 3).join('.')}.0/24`
  if (!isIPv6(ip)) return null
  const [head = '', tail = ''] = ip.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === '' ? [] : tail.split(':')
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left
  return `${groups.slice(0, 3).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/48`
}
