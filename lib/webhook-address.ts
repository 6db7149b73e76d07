/**
 * A webhook address with its secret part hidden: whoever holds the full URL can post into the channel,
 * so lists and the audit log keep the origin and the last four characters (enough to tell two webhooks
 * of one host apart, as the settings cards do for secrets). The web client shows addresses the same way.
 */
export function maskedAddress (address: string): string {
  let origin: string
  try {
    origin = new URL(address).origin
  } catch {
    return '…'
  }
  const rest = address.slice(origin.length)
  // Already masked (an audit entry written masked): kept as it is.
  if (rest.startsWith('/…')) return address
  return rest.length > 8 ? `${origin}/…${rest.slice(-4)}` : `${origin}/…`
}

/** Whether a text is a web address (a webhook's id in the engine is its address). */
export const isWebAddress = (text: string): boolean => /^https?:\/\//i.test(text)
