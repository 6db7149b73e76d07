import type { AdminUser } from '../../schemas/admin-users'

/** i18n key of a webhook's delivery state, worded like the users list's filter. */
export function stateKey (webhook: Pick<AdminUser, 'enabled' | 'adminDisable'>): string {
  if (webhook.adminDisable) return 'adminWebhooks.stateBlocked'
  return webhook.enabled ? 'adminWebhooks.stateActive' : 'adminWebhooks.statePaused'
}

export { maskedAddress } from '../../lib/webhook-address'
