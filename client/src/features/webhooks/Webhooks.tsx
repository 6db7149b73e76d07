import { useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Page } from '../../components/Page'
import type { AdminUser } from '../../../../schemas/admin-users'
import type { NamedDelegate } from '../../../../schemas/delegates'
import { admin, ApiError } from '../../api'
import { ConfirmDialog } from '../../components/Dialog'
import { useConfirmation } from '../../forms/useConfirmation'
import { useSubmit } from '../../forms/useSubmit'
import { viewAs } from '../../shell/impersonation'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { maskedAddress, stateKey } from '../../webhook-state'
import '../../forms/forms.css'
import './webhooks.css'

type Webhook = Awaited<ReturnType<typeof admin.webhooks>>[number]

/** What the one confirmation dialog of the page is asking about. */
type Pending =
  | { kind: 'revoke', webhook: Webhook, delegate: NamedDelegate }
  | { kind: 'delete', webhook: Webhook }

/** The server's rules for a new webhook (schemas/admin-users.ts WebhookCreateSchema), checked before sending. */
const MAX_LENGTH = 255
const ADDRESS = /^https?:\/\/[^\s/?#]+\S*$/

const displayName = (user: { id: string, name: string | null }): string => user.name === null || user.name === '' ? user.id : user.name

/**
 * Webhook targets for administrators: create one, see its state and who may manage it, grant and revoke
 * delegates, pause it, delete it, and manage its alarms by viewing the site as the webhook.
 */
export default function Webhooks () {
  const { t } = useTranslation()
  usePageTitle(t('nav.adminWebhooks'))
  const [state, retry, replace] = useLoad((signal) => admin.webhooks(signal))
  // Announced from here: a grant, revoke or deletion changes the list, and the outcome must outlive that.
  const { message, announce, pending, dialog, heading, ask, close } = useConfirmation<Pending>()

  const update = (list: Webhook[], changed: Webhook): void => { replace(list.map((w) => w.id === changed.id ? changed : w)) }

  const confirm = (list: Webhook[]): void => {
    if (pending === null) return
    void dialog.run(async () => {
      // The list as it is now: the webhook may have been paused since the dialog opened.
      const webhook = list.find((w) => w.id === pending.webhook.id) ?? pending.webhook
      if (pending.kind === 'revoke') {
        const ids = await admin.revokeDelegate(webhook.id, pending.delegate.id)
        update(list, { ...webhook, delegates: webhook.delegates.filter((d) => ids.includes(d.id)) })
        announce(t('adminWebhooks.revoked', { name: displayName(pending.delegate), webhook: webhook.name }))
        close()
      } else {
        await admin.deleteUser(webhook.id)
        replace(list.filter((w) => w.id !== webhook.id))
        announce(t('adminWebhooks.deleted', { name: webhook.name }))
        close(true)
      }
    })
  }

  return (
    <Page title={t('adminWebhooks.title')} headingRef={heading} intro={t('adminWebhooks.intro')} status={message}>
      <Status state={state} retry={retry}>
        {(list) => (
          <>
            {list.length === 0
              ? <p className='muted'>{t('adminWebhooks.none')}</p>
              : (
                <ul className='list webhook-list'>
                  {list.map((webhook) => (
                    <WebhookItem
                      key={webhook.id}
                      webhook={webhook}
                      changed={(w) => { update(list, w) }}
                      announce={announce}
                      ask={ask}
                    />
                  ))}
                </ul>
                )}
            <ConfirmDialog
              open={pending !== null}
              title={pending?.kind === 'delete' ? t('adminWebhooks.confirmDeleteTitle') : t('adminWebhooks.confirmRevokeTitle')}
              confirmLabel={pending?.kind === 'delete' ? t('adminWebhooks.delete') : t('adminWebhooks.revokeConfirm')}
              busy={dialog.busy}
              error={dialog.error}
              onConfirm={() => { confirm(list) }}
              onCancel={() => { close() }}
            >
              <p>
                {pending?.kind === 'delete' && t('adminWebhooks.confirmDelete', { name: pending.webhook.name })}
                {pending?.kind === 'revoke' && t('adminWebhooks.confirmRevoke', { name: displayName(pending.delegate), webhook: pending.webhook.name })}
              </p>
            </ConfirmDialog>
          </>
        )}
      </Status>
      <CreateWebhook created={(name) => { announce(t('adminWebhooks.created', { name })); retry() }} />
    </Page>
  )
}

interface WebhookItemProps {
  webhook: Webhook
  changed: (w: Webhook) => void
  announce: (message: string) => void
  ask: (pending: Pending) => void
}

function WebhookItem ({ webhook, changed, announce, ask }: WebhookItemProps) {
  const { t } = useTranslation()
  const { busy, error, run } = useSubmit()
  const pause = (): void => {
    void run(async () => {
      const path = webhook.enabled ? 'pause' : 'resume'
      const user = await admin.setUserState(webhook.id, path)
      changed({ ...webhook, enabled: user.enabled, adminDisable: user.adminDisable })
      announce(t(user.enabled ? 'adminWebhooks.resumed' : 'adminWebhooks.paused', { name: webhook.name }))
    })
  }

  return (
    <li className='list-item webhook'>
      <div className='stack-tight'>
        <h2 className='webhook-name'>{webhook.name === '' ? t('adminWebhooks.unnamed') : webhook.name}</h2>
        <span className='small muted'>{t(stateKey(webhook))}</span>
        <Address address={webhook.id} />
      </div>
      <Delegates webhook={webhook} changed={changed} announce={announce} ask={ask} />
      <div className='row'>
        <button type='button' className='button button-primary' disabled={busy} onClick={() => { void run(() => viewAs(webhook.id)) }}>{t('adminWebhooks.manage')}</button>
        <button type='button' className='button' disabled={busy} onClick={pause}>{webhook.enabled ? t('adminWebhooks.pause') : t('adminWebhooks.resume')}</button>
        <button type='button' className='button button-danger' disabled={busy} onClick={() => { ask({ kind: 'delete', webhook }) }}>{t('adminWebhooks.delete')}</button>
      </div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </li>
  )
}

/** The address, hidden but for its origin and last characters, with reveal and copy. */
function Address ({ address }: { address: string }) {
  const { t } = useTranslation()
  const [shown, setShown] = useState(false)
  const [copied, setCopied] = useState<string | null>(null)
  const copy = (): void => {
    navigator.clipboard.writeText(address)
      .then(() => { setCopied(t('adminWebhooks.copied')) })
      .catch(() => { setCopied(t('adminWebhooks.copyFailed')) })
  }
  return (
    <div className='stack-tight'>
      <code className='webhook-address'>{shown ? address : maskedAddress(address)}</code>
      <div className='row'>
        <button type='button' className='button' aria-pressed={shown} onClick={() => { setShown(!shown) }}>{t('adminWebhooks.showAddress')}</button>
        {'clipboard' in navigator && <button type='button' className='button' onClick={copy}>{t('adminWebhooks.copyAddress')}</button>}
      </div>
      <span className='small' role='status'>{copied}</span>
    </div>
  )
}

function Delegates ({ webhook, changed, announce, ask }: Omit<WebhookItemProps, 'webhook'> & { webhook: Webhook }) {
  const { t } = useTranslation()
  const id = useId()
  const [adding, setAdding] = useState(false)
  const toggle = useRef<HTMLButtonElement>(null)
  const granted = (delegates: NamedDelegate[], user: AdminUser): void => {
    changed({ ...webhook, delegates })
    announce(t('adminWebhooks.granted', { name: displayName(user), webhook: webhook.name }))
    setAdding(false)
    toggle.current?.focus()
  }
  return (
    <section className='stack-tight webhook-delegates' aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('adminWebhooks.delegates')}</h3>
      {webhook.delegates.length === 0
        ? <p className='muted'>{t('adminWebhooks.noDelegates')}</p>
        : (
          <ul className='list'>
            {webhook.delegates.map((delegate) => (
              <li key={delegate.id} className='row webhook-delegate'>
                <span>{delegate.name ?? t('adminWebhooks.unknownUser')} <span className='small muted'>{delegate.id}</span></span>
                <button type='button' className='button' onClick={() => { ask({ kind: 'revoke', webhook, delegate }) }}>{t('adminWebhooks.revoke', { name: displayName(delegate) })}</button>
              </li>
            ))}
          </ul>
          )}
      <div>
        <button ref={toggle} type='button' className='button' aria-expanded={adding} aria-controls={`${id}-add`} onClick={() => { setAdding(!adding) }}>{t('adminWebhooks.addDelegate')}</button>
      </div>
      <div id={`${id}-add`}>{adding && <AddDelegate webhook={webhook} granted={granted} />}</div>
    </section>
  )
}

/** Finds a person with the admin user search (an id matches exactly or by its start) and grants them. */
function AddDelegate ({ webhook, granted }: { webhook: Webhook, granted: (delegates: NamedDelegate[], user: AdminUser) => void }) {
  const { t } = useTranslation()
  const id = useId()
  const [search, setSearch] = useState('')
  const [fieldError, setFieldError] = useState<string | null>(null)
  const [found, setFound] = useState<AdminUser[] | null>(null)
  const { busy, error, run } = useSubmit()
  const find = (): void => {
    const text = search.trim()
    if (text === '') { setFieldError(t('adminWebhooks.searchRequired')); return }
    setFieldError(null)
    void run(async () => {
      const page = await admin.users({ search: text, page: 1, pageSize: 10 })
      // A webhook never signs in, and people already granted need no second grant.
      setFound(page.users.filter((u) => u.type !== 'webhook' && !webhook.delegates.some((d) => d.id === u.id)))
    })
  }
  const grant = (user: AdminUser): void => {
    void run(async () => {
      const ids = await admin.grantDelegate(webhook.id, user.id)
      const known = new Map<string, string | null>(webhook.delegates.map((d) => [d.id, d.name]))
      known.set(user.id, user.name)
      granted(ids.map((d) => ({ id: d, name: known.get(d) ?? null })), user)
    })
  }
  return (
    <div className='stack'>
      <form className='stack' role='search' aria-label={t('adminWebhooks.findUser', { webhook: webhook.name })} noValidate onSubmit={(e) => { e.preventDefault(); find() }}>
        <div className='field'>
          <label htmlFor={`${id}-search`}>{t('adminWebhooks.searchUser')}</label>
          <input
            id={`${id}-search`}
            className='input'
            type='search'
            maxLength={100}
            value={search}
            aria-invalid={fieldError !== null}
            aria-describedby={fieldError !== null ? `${id}-search-error` : undefined}
            onChange={(e) => { setSearch(e.target.value) }}
          />
          {fieldError !== null && <p id={`${id}-search-error`} className='field-error'>{fieldError}</p>}
        </div>
        <div><button type='submit' className='button' disabled={busy}>{t('adminWebhooks.search')}</button></div>
      </form>
      <div role='status' aria-live='polite'>
        {found !== null && found.length === 0 && <p className='muted'>{t('adminWebhooks.noMatch')}</p>}
      </div>
      {found !== null && found.length > 0 && (
        <ul className='list' aria-label={t('adminWebhooks.matches')}>
          {found.map((user) => (
            <li key={user.id} className='row webhook-delegate'>
              <span>{displayName(user)} <span className='small muted'>{user.id} · {user.type}</span></span>
              <button type='button' className='button button-primary' disabled={busy} onClick={() => { grant(user) }}>{t('adminWebhooks.grant', { name: displayName(user) })}</button>
            </li>
          ))}
        </ul>
      )}
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </div>
  )
}

type FieldErrors = Partial<Record<'name' | 'url', string>>

function CreateWebhook ({ created }: { created: (name: string) => void }) {
  const { t } = useTranslation()
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [errors, setErrors] = useState<FieldErrors>({})
  const nameInput = useRef<HTMLInputElement>(null)
  const urlInput = useRef<HTMLInputElement>(null)
  const { busy, error, setError, run } = useSubmit()

  const check = (): FieldErrors => {
    const found: FieldErrors = {}
    if (name.trim() === '') found.name = t('adminWebhooks.nameRequired')
    else if (name.trim().length > MAX_LENGTH) found.name = t('fields.errors.tooLong', { max: MAX_LENGTH })
    if (url.trim() === '') found.url = t('adminWebhooks.urlRequired')
    else if (url.trim().length > MAX_LENGTH) found.url = t('fields.errors.tooLong', { max: MAX_LENGTH })
    else if (!ADDRESS.test(url.trim())) found.url = t('adminWebhooks.urlInvalid')
    return found
  }
  const show = (found: FieldErrors): void => {
    setErrors(found)
    if (found.name !== undefined) nameInput.current?.focus()
    else if (found.url !== undefined) urlInput.current?.focus()
  }

  const submit = (): void => {
    const found = check()
    if (Object.keys(found).length > 0) { show(found); return }
    setErrors({})
    void run(async () => {
      try {
        await admin.createWebhook({ name: name.trim(), url: url.trim() })
      } catch (err) {
        // A duplicate address and the server's field checks belong at their field; the rest above the button.
        if (err instanceof ApiError && err.status === 409) { show({ url: err.message }); return }
        if (err instanceof ApiError && err.status === 400 && err.details.length > 0) {
          const server: FieldErrors = {}
          for (const d of err.details) {
            if (d.field === '/name') server.name = t('adminWebhooks.serverRefused', { message: d.message })
            else if (d.field === '/url') server.url = t('adminWebhooks.serverRefused', { message: d.message })
          }
          if (Object.keys(server).length > 0) { show(server); return }
        }
        throw err
      }
      created(name.trim())
      setName('')
      setUrl('')
      setError(null)
    })
  }

  const field = (key: 'name' | 'url', label: string, input: React.RefObject<HTMLInputElement | null>, value: string, set: (v: string) => void, type: string, help?: string) => {
    const problem = errors[key]
    const described = [help !== undefined ? `webhook-${key}-help` : '', problem !== undefined ? `webhook-${key}-error` : ''].filter((s) => s !== '').join(' ')
    return (
      <div className='field'>
        <label htmlFor={`webhook-${key}`}>{label}</label>
        {help !== undefined && <p id={`webhook-${key}-help`} className='small muted'>{help}</p>}
        <input
          ref={input}
          id={`webhook-${key}`}
          className='input'
          type={type}
          autoComplete='off'
          maxLength={MAX_LENGTH}
          value={value}
          aria-invalid={problem !== undefined}
          aria-describedby={described === '' ? undefined : described}
          onChange={(e) => {
            set(e.target.value)
            // An error that no longer describes what is typed goes; the next submit checks again.
            if (problem !== undefined) setErrors({ ...errors, [key]: undefined })
          }}
        />
        {problem !== undefined && <p id={`webhook-${key}-error`} className='field-error'>{problem}</p>}
      </div>
    )
  }

  return (
    <form className='card stack' aria-labelledby='webhook-create-title' noValidate onSubmit={(e) => { e.preventDefault(); submit() }}>
      <h2 id='webhook-create-title'>{t('adminWebhooks.createTitle')}</h2>
      {field('name', t('adminWebhooks.name'), nameInput, name, setName, 'text')}
      {field('url', t('adminWebhooks.url'), urlInput, url, setUrl, 'url', t('adminWebhooks.urlHelp'))}
      <div><button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('adminWebhooks.create')}</button></div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </form>
  )
}
