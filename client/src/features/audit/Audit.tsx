import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import type { Static } from '@sinclair/typebox'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import type { AuditEntrySchema, AuditPageSchema } from '../../../../schemas/audit'
import { admin } from '../../api'
import { Facts } from '../../components/Facts'
import { useFormat } from '../../i18n/format'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { useMediaQuery } from '../../shell/useMediaQuery'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'
import './audit.css'

type AuditEntry = Static<typeof AuditEntrySchema>
type AuditPage = Static<typeof AuditPageSchema>

/** Every action the service records (the routes' `config.audit`), in the order the filter offers them. */
const ACTIONS = [
  'user.disable', 'user.enable', 'user.pause', 'user.resume', 'user.edit', 'user.delete-alarms', 'user.delete', 'sessions.end',
  'impersonation.start', 'impersonation.end', 'webhook.create', 'delegate.grant', 'delegate.revoke', 'setting.change',
  'geofence.approve', 'geofence.reject', 'geofence.delete', 'quick-pick.save', 'quick-pick.delete', 'quick-pick.seed', 'icon-set.check'
] as const

const PAGE_SIZE = 25

/** The filter form as typed; `from` and `to` are the local times of datetime-local fields. */
interface Filters { actor: string, target: string, action: string, from: string, to: string }
const NO_FILTERS: Filters = { actor: '', target: '', action: '', from: '', to: '' }

/** `user.delete-alarms` → the string `audit.actions.userDeleteAlarms`; an action this client does not know reads as sent. */
function actionName (t: TFunction, action: string): string {
  if (!(ACTIONS as readonly string[]).includes(action)) return action
  return t(`audit.actions.${action.replace(/[.-]([a-z])/g, (_, c: string) => c.toUpperCase())}`)
}

/**
 * The audit log for administrators: what each administrator did, to whom, when, and what changed,
 * newest first; filtered by administrator, target, action and time, paged. A table on wide screens,
 * one card per entry on a phone.
 */
export default function Audit () {
  const { t } = useTranslation()
  usePageTitle(t('nav.audit'))
  const [draft, setDraft] = useState<Filters>(NO_FILTERS)
  const [rangeError, setRangeError] = useState<string | null>(null)
  // `cursors`: the `before` of each page after the first, so "Newer" goes back; `turned`: the pager
  // reloaded the list, so focus moves to the list's heading.
  const [query, setQuery] = useState({ filters: NO_FILTERS, cursors: [] as number[], turned: false })
  const [state, retry] = useLoad((signal) => {
    const { filters, cursors } = query
    const given = (value: string): string | undefined => value === '' ? undefined : value
    const time = (value: string): string | undefined => value === '' ? undefined : new Date(value).toISOString()
    const before = cursors[cursors.length - 1]
    return admin.audit({
      limit: PAGE_SIZE,
      actor: given(filters.actor),
      target: given(filters.target),
      action: given(filters.action),
      from: time(filters.from),
      to: time(filters.to),
      before
    }, signal)
  }, [query])
  const toField = useRef<HTMLInputElement>(null)

  const apply = (filters: Filters): void => {
    const clean = { ...filters, actor: filters.actor.trim(), target: filters.target.trim() }
    if (clean.from !== '' && clean.to !== '' && clean.from > clean.to) {
      setRangeError(t('audit.rangeInvalid'))
      toField.current?.focus()
      return
    }
    setRangeError(null)
    setQuery({ filters: clean, cursors: [], turned: false })
  }
  const filtered = Object.values(query.filters).some((v) => v !== '')

  const field = (key: 'actor' | 'target', label: string, help: string) => (
    <div className='field'>
      <label htmlFor={`audit-${key}`}>{label}</label>
      <p id={`audit-${key}-help`} className='small muted'>{help}</p>
      <input
        id={`audit-${key}`}
        className='input'
        type='search'
        maxLength={key === 'actor' ? 255 : 500}
        aria-describedby={`audit-${key}-help`}
        value={draft[key]}
        onChange={(e) => { setDraft({ ...draft, [key]: e.target.value }) }}
      />
    </div>
  )

  return (
    <Page title={t('audit.title')} intro={t('audit.intro')} className='audit-page'>
      <form className='card stack' role='search' aria-label={t('audit.filters')} noValidate onSubmit={(e) => { e.preventDefault(); apply(draft) }}>
        <div className='audit-filters'>
          {field('actor', t('audit.actor'), t('audit.actorHelp'))}
          {field('target', t('audit.target'), t('audit.targetHelp'))}
          <div className='field'>
            <label htmlFor='audit-action'>{t('audit.action')}</label>
            <select id='audit-action' className='input' value={draft.action} onChange={(e) => { setDraft({ ...draft, action: e.target.value }) }}>
              <option value=''>{t('audit.allActions')}</option>
              {ACTIONS.map((action) => <option key={action} value={action}>{actionName(t, action)}</option>)}
            </select>
          </div>
          <div className='field'>
            <label htmlFor='audit-from'>{t('audit.from')}</label>
            <input id='audit-from' className='input' type='datetime-local' value={draft.from} onChange={(e) => { setDraft({ ...draft, from: e.target.value }) }} />
          </div>
          <div className='field'>
            <label htmlFor='audit-to'>{t('audit.to')}</label>
            <input
              ref={toField}
              id='audit-to'
              className='input'
              type='datetime-local'
              value={draft.to}
              aria-invalid={rangeError !== null}
              aria-describedby={rangeError !== null ? 'audit-to-error' : undefined}
              onChange={(e) => { setDraft({ ...draft, to: e.target.value }); setRangeError(null) }}
            />
            {rangeError !== null && <p id='audit-to-error' className='field-error'>{rangeError}</p>}
          </div>
        </div>
        <div className='row'>
          <button type='submit' className='button button-primary'>{t('audit.apply')}</button>
          <button type='button' className='button' onClick={() => { setDraft(NO_FILTERS); apply(NO_FILTERS) }}>{t('audit.clear')}</button>
        </div>
      </form>
      <Status state={state} retry={retry}>
        {(page) => (
          <Entries
            page={page}
            filtered={filtered}
            pageNumber={query.cursors.length + 1}
            turned={query.turned}
            newer={() => { setQuery({ ...query, cursors: query.cursors.slice(0, -1), turned: true }) }}
            older={(cursor) => { setQuery({ ...query, cursors: [...query.cursors, cursor], turned: true }) }}
          />
        )}
      </Status>
    </Page>
  )
}

interface EntriesProps {
  page: AuditPage
  filtered: boolean
  pageNumber: number
  turned: boolean
  newer: () => void
  older: (cursor: number) => void
}

function Entries ({ page, filtered, pageNumber, turned, newer, older }: EntriesProps) {
  const { t } = useTranslation()
  const wide = useMediaQuery('(min-width: 75rem)')
  const headingId = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => { if (turned) heading.current?.focus() }, [turned])

  return (
    <Card className='stack' title={t('audit.entries')} headingId={headingId} headingRef={heading}>
      {page.entries.length === 0
        ? <p className='muted'>{filtered ? t('audit.noMatch') : t('audit.empty')}</p>
        : wide
          ? (
            <div className='audit-table-wrap' role='region' aria-labelledby={headingId} tabIndex={0}>
              <table className='audit-table'>
                <thead>
                  <tr>
                    <th scope='col'>{t('audit.time')}</th>
                    <th scope='col'>{t('audit.actor')}</th>
                    <th scope='col'>{t('audit.action')}</th>
                    <th scope='col'>{t('audit.target')}</th>
                    <th scope='col'>{t('audit.details')}</th>
                  </tr>
                </thead>
                <tbody>
                  {page.entries.map((entry) => <EntryRow key={entry.id} entry={entry} />)}
                </tbody>
              </table>
            </div>
            )
          : (
            <ul className='list'>
              {page.entries.map((entry) => <EntryCard key={entry.id} entry={entry} />)}
            </ul>
            )}
      {(pageNumber > 1 || page.nextCursor !== null) && (
        <nav className='pager' aria-label={t('audit.pages')}>
          <button type='button' className='button' disabled={pageNumber <= 1} onClick={newer}>
            <span aria-hidden='true'>‹</span>{t('audit.newer')}
          </button>
          <span className='pager-position'>{t('audit.page', { page: pageNumber })}</span>
          <button type='button' className='button' disabled={page.nextCursor === null} onClick={() => { if (page.nextCursor !== null) older(page.nextCursor) }}>
            {t('audit.older')}<span aria-hidden='true'>›</span>
          </button>
        </nav>
      )}
    </Card>
  )
}

/** When an entry was written, to the second: several actions often fall in one minute. */
function useWhen (): (iso: string) => string {
  const format = useFormat()
  return (iso) => format.dateTime(new Date(iso), { dateStyle: 'medium', timeStyle: 'medium' })
}

/** The request id and what changed (the request's query and body, secrets already removed by the server). */
function Details ({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation()
  const changed = entry.details !== null && entry.details !== undefined && !(typeof entry.details === 'object' && Object.keys(entry.details).length === 0)
  return (
    <details className='audit-details'>
      <summary>{t('audit.showDetails')}</summary>
      <p className='small'>{t('audit.requestId', { id: entry.requestId })}</p>
      {changed ? <pre>{JSON.stringify(entry.details, null, 2)}</pre> : <p className='small muted'>{t('audit.noDetails')}</p>}
    </details>
  )
}

function EntryRow ({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation()
  const when = useWhen()
  return (
    <tr>
      <td><time dateTime={entry.at}>{when(entry.at)}</time></td>
      <td className='audit-id'>{entry.actorId}</td>
      <td>{actionName(t, entry.action)}</td>
      <td className='wrap-anywhere'>{entry.target ?? ''}</td>
      <td><Details entry={entry} /></td>
    </tr>
  )
}

function EntryCard ({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation()
  const when = useWhen()
  return (
    <li className='list-item audit-card'>
      <h3 className='audit-card-title'>{actionName(t, entry.action)}</h3>
      <Facts rows={[
        [t('audit.time'), when(entry.at)],
        [t('audit.actor'), entry.actorId],
        [t('audit.target'), entry.target ?? '']
      ]}
      />
      <Details entry={entry} />
    </li>
  )
}
