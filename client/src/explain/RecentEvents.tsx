import { useEffect, useId, useMemo, useState } from 'react'
import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import { Card } from '../components/Card'
import type { Explanation, RecentEventType, RecentList } from '../../../schemas/alarm-explanations'
import { ApiError, explanations } from '../api'
import { alarmEditorPath, pagePath, type AlarmTypeDescriptor } from '../alarm-types'
import { useFormat } from '../i18n/format'
import { gruntName, loadRaidLevels, monsterName, type Grunt, type Monster, type RaidLevel } from '../pickers/game-data'
import { useGrunts, useMonsters } from '../pickers/useGameData'
import { useSession } from '../shell/session-context'
import { describeAlarm, type Vocabulary } from '../alarm-kit/describe'
import { alarmSentence, failedField, reason } from './sentences'
import { GameIcon, type IconRequest } from '../icons'
import './sentences.css'
import './recent-events.css'

type Event = RecentList['events'][number]

const TYPES: RecentEventType[] = ['pokemon', 'raid', 'quest', 'invasion', 'lure']
/** The alarm type whose name and page an event type shares. */
const TYPE_NAME: Record<RecentEventType, string> = { pokemon: 'pokemon', raid: 'raid', quest: 'quest', invasion: 'invasion', lure: 'lure' }

const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone

type Page = { status: 'loading' } | { status: 'failed', message: string } | { status: 'ready', events: Event[], nextCursor: string | null, more: boolean }

interface Names { t: TFunction, monsters: Monster[] | null, grunts: Record<string, Grunt> | null }

/** What the event was, in words: "Dratini 82 %", "Level 5 raid: Mewtwo", "Rare Candy ×3"… */
function eventName (e: Event, { t, monsters, grunts }: Names, percent: (v: number) => string): string {
  switch (e.type) {
    case 'pokemon': {
      const name = monsterName(monsters, e.pokemonId, e.form)
      return e.iv === null || e.iv === undefined ? t('explanations.unencountered', { name }) : `${name} ${percent(e.iv)}`
    }
    case 'raid':
      return e.pokemonId > 0
        ? t('explanations.raid', { level: e.raidLevel ?? 0, boss: monsterName(monsters, e.pokemonId, e.form) })
        : t('explanations.egg', { level: e.raidLevel ?? 0 })
    case 'quest':
      return (e.rewards ?? []).map((r) => r.type === 7
        ? monsterName(monsters, r.pokemonId, r.form)
        : r.type === 2 ? `${t('describe.item', { id: r.itemId })} ×${r.amount}` : t('explanations.reward', { type: r.type, amount: r.amount })).join(', ')
    case 'invasion': {
      const grunt = grunts?.[String(e.gruntType ?? 0)]
      const kind = grunt === undefined ? `#${e.gruntType ?? 0}` : t(`picker.invasions.${grunt.type.toLowerCase()}`, { defaultValue: gruntName(grunt.type) })
      return t('describe.grunt', { grunt: kind })
    }
    case 'lure':
      return t(`pickers.values.lure_id.${e.lureId ?? 0}`)
  }
}

function eventIcon (e: Event): IconRequest {
  switch (e.type) {
    case 'pokemon': return { kind: 'pokemon', id: e.pokemonId, form: e.form }
    case 'raid': return e.pokemonId > 0 ? { kind: 'pokemon', id: e.pokemonId, form: e.form } : { kind: 'egg', level: e.raidLevel ?? 1 }
    case 'quest': {
      const r = e.rewards?.[0]
      return r?.type === 7 ? { kind: 'pokemon', id: r.pokemonId, form: r.form } : r?.type === 2 ? { kind: 'reward', reward: 'item', id: r.itemId, amount: r.amount } : { kind: 'misc', name: 'quest' }
    }
    case 'invasion': return { kind: 'invasion', id: e.gruntType ?? 0 }
    case 'lure': return { kind: 'pokestop', lure: e.lureId ?? 0 }
  }
}

/** A new alarm that would have caught the event, as the editor's query: `?add=new&pokemon_id=…&min_iv=…`. */
function prefillQuery (e: Event): string {
  const fields: Record<string, number> = {}
  if (e.type === 'pokemon') {
    Object.assign(fields, { pokemon_id: e.pokemonId, form: e.form })
    if (e.iv !== null && e.iv !== undefined) fields.min_iv = Math.floor(e.iv)
  } else if (e.type === 'raid') {
    Object.assign(fields, e.pokemonId > 0 ? { pokemon_id: e.pokemonId, form: e.form } : { pokemon_id: 9000, level: e.raidLevel ?? 1 })
  } else if (e.type === 'lure' && e.lureId !== undefined) {
    fields.lure_id = e.lureId
  }
  return new URLSearchParams({ add: 'new', ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])) }).toString()
}

/**
 * The recent list of "why didn't I get…?" with the answer for the event tapped: the signed-in member's
 * own, or a member's for an admin (`userId`). Each alarm gets a sentence; the member's own alarms of the
 * active profile open in their editor.
 */
export function RecentEvents ({ userId }: { userId?: string }) {
  const { t, i18n } = useTranslation()
  const format = useFormat()
  const { alarmTypes, user } = useSession()
  const { monsters } = useMonsters()
  const { grunts } = useGrunts()
  const [raidLevels, setRaidLevels] = useState<RaidLevel[] | null>(null)
  useEffect(() => { void loadRaidLevels().then(setRaidLevels, () => undefined) }, [])
  const [type, setType] = useState<RecentEventType>('pokemon')
  const [query, setQuery] = useState('')
  const [page, setPage] = useState<Page>({ status: 'loading' })
  const [round, setRound] = useState(0)
  const [open, setOpen] = useState<string | null>(null)

  useEffect(() => {
    const controller = new AbortController()
    setPage({ status: 'loading' })
    setOpen(null)
    explanations.recent(type, undefined, userId, controller.signal)
      .then((list) => { if (!controller.signal.aborted) setPage({ status: 'ready', events: list.events, nextCursor: list.nextCursor, more: false }) })
      .catch((err: unknown) => { if (!controller.signal.aborted) setPage({ status: 'failed', message: err instanceof ApiError ? err.message : t('status.failed') }) })
    return () => { controller.abort() }
  }, [type, userId, round, t])

  const more = (): void => {
    if (page.status !== 'ready' || page.nextCursor === null) return
    const before = page
    setPage({ ...before, more: true })
    explanations.recent(type, before.nextCursor ?? undefined, userId)
      .then((list) => { setPage({ status: 'ready', events: [...before.events, ...list.events], nextCursor: list.nextCursor, more: false }) })
      .catch((err: unknown) => { setPage({ status: 'failed', message: err instanceof ApiError ? err.message : t('status.failed') }) })
  }

  const percent = (v: number): string => format.number(v, { style: 'unit', unit: 'percent', maximumFractionDigits: 2 })
  const names: Names = { t, monsters, grunts }
  const events = page.status === 'ready' ? page.events : []
  const q = query.trim().toLocaleLowerCase(i18n.language)
  const shown = events.filter((e) => q === '' || [eventName(e, names, percent), e.area ?? '', e.place ?? ''].some((text) => text.toLocaleLowerCase(i18n.language).includes(q)))
  const vocabulary: Vocabulary = useMemo(() => ({ t, monsters, raidLevels, number: format.number, numberRange: format.numberRange, gymNames: new Map() }), [t, monsters, raidLevels, format])

  return (
    <Card className='stack' title={t('explanations.recentTitle')}>
      <div className='explain-filters'>
        <label className='field'>
          <span>{t('explanations.kind')}</span>
          <select className='select' value={type} onChange={(e) => { setType(e.target.value as RecentEventType) }}>
            {TYPES.map((k) => <option key={k} value={k}>{t(`alarms.types.${TYPE_NAME[k]}`)}</option>)}
          </select>
        </label>
        <label className='field explain-search'>
          <span>{t('explanations.search')}</span>
          <input className='input' type='search' value={query} onChange={(e) => { setQuery(e.target.value) }} placeholder={t('explanations.searchHint')} />
        </label>
      </div>
      {page.status === 'loading' && <p className='muted' role='status' aria-live='polite'><span className='spinner' aria-hidden='true' />{t('status.loading')}</p>}
      {page.status === 'failed' && (
        <div className='notice notice-error' role='alert'>
          <p>{page.message}</p>
          <button type='button' className='button' onClick={() => { setRound((r) => r + 1) }}>{t('status.retry')}</button>
        </div>
      )}
      {page.status === 'ready' && (
        <>
          <p className='small muted' role='status' aria-live='polite'>{t('explanations.count', { count: shown.length })}</p>
          {shown.length === 0
            ? <p className='muted'>{events.length === 0 ? t('explanations.none') : t('explanations.noMatch')}</p>
            : (
              <ul className='list explain-list'>
                {shown.map((e) => (
                  <EventItem
                    key={e.id}
                    event={e}
                    name={eventName(e, names, percent)}
                    when={format.dateTime(e.seenAt * 1000, { timeStyle: 'short' })}
                    open={open === e.id}
                    toggle={() => { setOpen(open === e.id ? null : e.id) }}
                    userId={userId}
                    vocabulary={vocabulary}
                    types={alarmTypes}
                    ownProfileNo={userId === undefined ? user.profileNo : null}
                  />
                ))}
              </ul>
              )}
          {page.nextCursor !== null && (
            <div><button type='button' className='button' disabled={page.more} onClick={more}>{page.more ? t('status.loading') : t('explanations.more')}</button></div>
          )}
        </>
      )}
    </Card>
  )
}

interface ItemProps {
  event: Event
  name: string
  when: string
  open: boolean
  toggle: () => void
  userId: string | undefined
  vocabulary: Vocabulary
  types: AlarmTypeDescriptor[]
  /** The member's active profile when they look at their own list (their editor opens its alarms); else null. */
  ownProfileNo: number | null
}

function EventItem ({ event, name, when, open, toggle, userId, vocabulary, types, ownProfileNo }: ItemProps) {
  const id = useId()
  const where = [event.place, event.area].filter((x): x is string => x !== null && x !== '').join(' · ')
  return (
    <li className='list-item explain-item'>
      <button type='button' className='explain-event' aria-expanded={open} aria-controls={`${id}-answer`} onClick={toggle}>
        <GameIcon icon={eventIcon(event)} label={name} size={36} />
        <span className='stack-tight explain-event-text'>
          <span className='explain-event-name'>{name}</span>
          <span className='small muted'>{where === '' ? when : `${when} · ${where}`}</span>
        </span>
      </button>
      <div id={`${id}-answer`} className='explain-answer' hidden={!open}>
        {open && <Answer event={event} name={name} userId={userId} vocabulary={vocabulary} types={types} ownProfileNo={ownProfileNo} />}
      </div>
    </li>
  )
}

function Answer ({ event, name, userId, vocabulary, types, ownProfileNo }: Omit<ItemProps, 'open' | 'toggle' | 'when'>) {
  const { t } = useTranslation()
  const [state, setState] = useState<{ status: 'loading' } | { status: 'failed', message: string } | { status: 'ready', answer: Explanation }>({ status: 'loading' })
  useEffect(() => {
    let live = true
    explanations.explain(event.id, timeZone(), userId)
      .then((answer) => { if (live) setState({ status: 'ready', answer }) })
      .catch((err: unknown) => { if (live) setState({ status: 'failed', message: err instanceof ApiError ? err.message : t('status.failed') }) })
    return () => { live = false }
  }, [event.id, userId, t])

  if (state.status === 'loading') return <p className='muted' role='status'><span className='spinner' aria-hidden='true' />{t('explanations.explaining')}</p>
  if (state.status === 'failed') return <p className='notice notice-error' role='alert'>{state.message}</p>
  const { answer } = state
  const profileName = (no: number): string => answer.profiles.find((p) => p.profileNo === no)?.name ?? String(no)
  const typeOf = (type: string): AlarmTypeDescriptor | undefined => types.find((k) => k.type === type)
  const typeForNew = typeOf(TYPE_NAME[event.type])
  return (
    <div className='stack-tight' role='status' aria-live='polite'>
      <p className={answer.alerted ? 'explain-verdict explain-yes' : 'explain-verdict explain-no'}>
        {answer.alerted ? t('explanations.alerted', { name }) : t('explanations.notAlerted', { name })}
      </p>
      {answer.member.map((f) => <p key={f.filter} className='notice'>{reason(f, vocabulary)}</p>)}
      {answer.alarms.length === 0 && <p className='muted'>{t('explanations.noAlarms')}</p>}
      <ul className='explain-alarms'>
        {answer.alarms.map((a) => {
          const type = typeOf(a.type)
          const described = type === undefined ? `#${a.uid}` : describeAlarm(type, { ...a.alarm, uid: a.uid }, vocabulary)
          const editable = ownProfileNo !== null && type !== undefined && a.profileNo === ownProfileNo
          return (
            <li key={`${a.type}-${a.uid}`} className={a.matches ? 'explain-alarm explain-yes' : 'explain-alarm'}>
              <span>{alarmSentence(a, described, profileName(a.profileNo), vocabulary)}</span>
              {editable && type !== undefined && (
                <Link className='explain-action' to={alarmEditorPath(type, a.uid, failedField(a, new Set(type.fields.map((f) => f.name))))}>{t('explanations.openAlarm')}</Link>
              )}
            </li>
          )
        })}
      </ul>
      {!answer.alerted && ownProfileNo !== null && typeForNew !== undefined && (
        <div><Link className='button' to={`/alarms/${pagePath(typeForNew)}?${prefillQuery(event)}`}>{t('explanations.addAlarm')}</Link></div>
      )}
    </div>
  )
}
