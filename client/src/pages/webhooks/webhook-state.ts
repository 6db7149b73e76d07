import type { AdminUser } from '../../../../schemas/admin-users'

/** i18n key of a webhook's delivery state, worded like the users list's filter. */
export function stateKey (webhook: Pick<AdminUser, 'enabled' | 'adminDisable'>): string {
  if (webhook.adminDisable) return 'adminWebhooks.stateBlocked'
  return webhook.enabled ? 'adminWebhooks.stateActive' : 'adminWebhooks.statePaused'
}

/**
 * A webhook address with its secret part hidden: whoever holds the full URL can post into the channel,
 * so lists show the origin and the last four characters (enough to tell two webhooks of one host apart,
 * as the settings cards do for secrets), and the whole address only on request.
 */
export function maskedAddress (address: string): string {
  let origin: string
  try {
    origin = new URL(address).origin
  } catch {
    return '…'
  }
  const rest = address.slice(origin.length)
  return rest.length > 8 ? `${origin}/…${rest.slice(-4)}` : `${origin}/…`
}
