import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Page } from '../../components/Page'
import { admin } from '../../api'
import { useDialogs } from '../../components/Dialog'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { viewAs } from '../../shell/impersonation'
import { maskedAddress } from '../../webhook-state'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

type UserPage = Awaited<ReturnType<typeof admin.users>>
type AdminUser = UserPage['users'][number]
type StatusFilter = '' | 'active' | 'paused' | 'blocked'

const PAGE_SIZE = 25

/**
 * A webhook's id is its address, secret token included: the list shows it masked as the Webhooks page
 * does (whoever reads the screen could otherwise post into the channel).
 */
const shownId = (user: AdminUser): string => user.type.startsWith('webhook') ? maskedAddress(user.id) : user.id

/**
 * Engine users for administrators: search by id or name, filter by state, page through; block (which
 * ends their sessions), pause, view the site as them, delete their alarms or the whole account. Webhook
 * targets are created on the Webhooks page, beside their delegates.
 */
export default function Users () {
  const { t } = useTranslation()
  usePageTitle(t('nav.adminUsers'))
  const [search, setSearch] = useState('')
  // `turned`: the list was reloaded by the pager, whose button goes away meanwhile, so focus moves to the list's heading.
  const [query, setQuery] = useState({ search: '', status: '' as StatusFilter, page: 1, turned: false })
  const [state, retry, replace] = useLoad((signal) => {
    return admin.users({
      page: query.page,
      pageSize: PAGE_SIZE,
      ...(query.search !== '' && { search: query.search }),
      ...(query.status !== '' && { status: query.status })
    }, signal)
  }, [query])
  // Announced from here: a deletion reloads the list, and the outcome must outlive that.
  const [message, setMessage] = useState<string | null>(null)

  return (
    <Page title={t('adminUsers.title')}>
      <form className='card stack' role='search' onSubmit={(e) => { e.preventDefault(); setQuery({ ...query, search: search.trim(), page: 1, turned: false }) }}>
        <div className='field'>
          <label htmlFor='user-search'>{t('adminUsers.search')}</label>
          <input id='user-search' className='input' type='search' maxLength={100} value={search} onChange={(e) => { setSearch(e.target.value) }} />
        </div>
        <div className='field'>
          <label htmlFor='user-status'>{t('adminUsers.filter')}</label>
          <select id='user-status' className='input' value={query.status} onChange={(e) => { setQuery({ ...query, status: e.target.value as StatusFilter, page: 1, turned: false }) }}>
            <option value=''>{t('adminUsers.statusAll')}</option>
            <option value='active'>{t('adminUsers.statusActive')}</option>
            <option value='paused'>{t('adminUsers.statusPaused')}</option>
            <option value='blocked'>{t('adminUsers.statusBlocked')}</option>
          </select>
        </div>
        <div><button type='submit' className='button button-primary'>{t('adminUsers.searchButton')}</button></div>
      </form>
      <div role='status' aria-live='polite'>{message !== null && <p className='notice'>{message}</p>}</div>
      <Status state={state} retry={retry}>
        {(page) => (
          <UserList
            page={page}
            announce={setMessage}
            changed={(user) => { replace({ ...page, users: page.users.map((u) => u.id === user.id ? user : u) }) }}
            removed={retry}
            turned={query.turned}
            goTo={(n) => { setQuery({ ...query, page: n, turned: true }) }}
          />
        )}
      </Status>
    </Page>
  )
}

interface UserListProps {
  page: UserPage
  announce: (message: string) => void
  changed: (u: AdminUser) => void
  removed: () => void
  turned: boolean
  goTo: (n: number) => void
}

function UserList ({ page, announce: setMessage, changed, removed, turned, goTo }: UserListProps) {
  const { t } = useTranslation()
  const format = useFormat()
  const { busy, error, run } = useSubmit()
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize))
  const id = (user: AdminUser): string => encodeURIComponent(user.id)
  const heading = useRef<HTMLHeadingElement>(null)
  const ask = useDialogs()
  useEffect(() => { if (turned) heading.current?.focus() }, [turned])

  const action = (user: AdminUser, path: 'disable' | 'enable' | 'pause' | 'resume', done: string): void => {
    void run(async () => {
      changed(await admin.setUserState(user.id, path))
      setMessage(done)
    })
  }
  const deleteAlarms = async (user: AdminUser): Promise<void> => {
    if (!await ask.confirm({ title: t('adminUsers.confirmDeleteAlarms', { name: user.name }), confirmLabel: t('dialog.delete'), danger: true })) return
    void run(async () => {
      const { deleted } = await admin.deleteUserAlarms(user.id)
      setMessage(t('adminUsers.alarmsDeleted', { name: user.name, count: deleted }))
    })
  }
  const deleteUser = async (user: AdminUser): Promise<void> => {
    if (!await ask.confirm({ title: t('adminUsers.confirmDelete', { name: user.name, id: shownId(user) }), confirmLabel: t('dialog.delete'), danger: true })) return
    void run(async () => {
      await admin.deleteUser(user.id)
      setMessage(t('adminUsers.deleted', { name: user.name }))
      removed()
    })
  }

  return (
    <section className='card stack' aria-labelledby='user-list'>
      {ask.dialog}
      <h2 id='user-list' ref={heading} tabIndex={-1}>{t('adminUsers.found', { count: page.total })}</h2>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      <ul className='list'>
        {page.users.map((user) => (
          <li key={user.id} className='list-item stack'>
            <div className='stack-tight'>
              <strong className='wrap-anywhere'>{user.name === '' ? shownId(user) : user.name}</strong>
              <span className='small muted wrap-anywhere'>
                {shownId(user)} · {user.type} · {user.adminDisable ? t('adminUsers.statusBlocked') : user.enabled ? t('adminUsers.statusActive') : t('adminUsers.statusPaused')}
                {user.lastChecked !== null && ` · ${t('adminUsers.lastSeen', { when: format.dateTime(new Date(user.lastChecked)) })}`}
              </span>
            </div>
            <div className='row'>
              {user.adminDisable
                ? <button type='button' className='button' disabled={busy} onClick={() => { action(user, 'enable', t('adminUsers.unblocked', { name: user.name })) }}>{t('adminUsers.unblock', { name: user.name })}</button>
                : <button type='button' className='button button-warning' disabled={busy} onClick={() => { action(user, 'disable', t('adminUsers.blocked', { name: user.name })) }}>{t('adminUsers.block', { name: user.name })}</button>}
              {user.enabled
                ? <button type='button' className='button' disabled={busy} onClick={() => { action(user, 'pause', t('adminUsers.paused', { name: user.name })) }}>{t('adminUsers.pause')}</button>
                : <button type='button' className='button' disabled={busy} onClick={() => { action(user, 'resume', t('adminUsers.resumed', { name: user.name })) }}>{t('adminUsers.resume')}</button>}
              <button type='button' className='button' disabled={busy} onClick={() => { void run(() => viewAs(user.id)) }}>{t('adminUsers.viewAs')}</button>
              <Link className='button' to={`/admin/users/edit?id=${id(user)}`}>{t('adminUsers.edit', { name: user.name === '' ? shownId(user) : user.name })}</Link>
              <button type='button' className='button' disabled={busy} onClick={() => { void deleteAlarms(user) }}>{t('adminUsers.deleteAlarms')}</button>
              <button type='button' className='button button-danger' disabled={busy} onClick={() => { void deleteUser(user) }}>{t('adminUsers.delete')}</button>
            </div>
          </li>
        ))}
      </ul>
      {/* One line down to 320 px: the position is "2 / 5" on screen and "Page 2 of 5" when read out. */}
      <nav className='pager' aria-label={t('adminUsers.pages')}>
        <button type='button' className='button' disabled={page.page <= 1} onClick={() => { goTo(page.page - 1) }}>
          <span aria-hidden='true'>‹</span>{t('adminUsers.previous')}
        </button>
        <span className='pager-position'>
          <span aria-hidden='true'>{t('adminUsers.pageShort', { page: page.page, pages })}</span>
          <span className='visually-hidden'>{t('adminUsers.pageOf', { page: page.page, pages })}</span>
        </span>
        <button type='button' className='button' disabled={page.page >= pages} onClick={() => { goTo(page.page + 1) }}>
          {t('adminUsers.next')}<span aria-hidden='true'>›</span>
        </button>
      </nav>
    </section>
  )
}
