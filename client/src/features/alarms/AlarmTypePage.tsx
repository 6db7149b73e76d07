import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { useWindowVirtualizer, windowScroll, type Virtualizer } from '@tanstack/react-virtual'
import { useTranslation } from 'react-i18next'
import { Link, useParams, useSearchParams } from 'react-router'
import { Page } from '../../components/Page'
import { alarms as alarmsApi, ApiError } from '../../api'
import { pagePath, type AlarmTypeDescriptor } from '../../alarm-types'
import { AlarmCard } from './AlarmCard'
import { AlarmForm, type Outcome } from '../../alarm-kit/AlarmForm'
import { BulkEdit, type BulkResult } from './BulkEdit'
import { describeAlarm, LEVEL_NAMING_TYPES, prepareCardFormats, subjectOf, type Vocabulary } from '../../alarm-kit/describe'
import { Dialog, useDialogs } from '../../components/Dialog'
import { withoutFirstWrite } from '../../components/virtual-scroll'
import { ProfileTotal } from '../../estimates/ProfileTotal'
import { usePreparedPokemonCatalogue } from '../../pickers/grid'
import { recreateBody, type Alarm } from '../../alarm-kit/form-model'
import { useAnnouncer } from '../../alarm-kit/useAnnouncer'
import { formatNumber, formatNumberRange, nameCollator } from '../../i18n/format'
import { loadRaidLevels, type RaidLevel } from '../../pickers/game-data'
import { useGymNames, useMonsters, useMoves } from '../../pickers/useGameData'
import { featureOff, useSession } from '../../shell/session-context'
import { ShareForm } from '../../share-links/ShareForm'
import { whenIdle } from '../../shell/idle'
import { ANY_MOVE } from '../../alarm-kit/game-words'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'
import '../../alarm-kit/alarms.css'

/**
 * The alarms of one type in the active profile, rendered from the type's descriptor: the same page,
 * cards and form serve all ten types. A type the site or the engine switched off says why.
 */
export default function AlarmTypePage () {
  const { t } = useTranslation()
  const { type: path } = useParams()
  const { allAlarmTypes } = useSession()
  const type = allAlarmTypes.find((entry) => pagePath(entry) === path)
  const title = type === undefined ? t('notFound.title') : t(type.labelKey)
  usePageTitle(title)

  if (type === undefined) {
    return <Page title={title}><Link to='/'>{t('notFound.home')}</Link></Page>
  }
  return (
    <Page title={title}>
      {type.reason === null
        ? <><ProfileTotal types={[type.type]} /><AlarmList key={type.type} type={type} /></>
        : (
          <div className='notice notice-warning' role='status'>
            <p>{t(`alarms.unavailable.${type.reason}`)}</p>
            <p><Link to='/'>{t('notFound.home')}</Link></p>
          </div>
          )}
    </Page>
  )
}

type Sort = 'name' | 'number' | 'newest'
type Quick = 'highIv' | 'pvp' | 'distance'
const QUICK: Record<Quick, (a: Alarm) => boolean> = {
  highIv: (a) => Number(a.min_iv ?? -1) >= 90,
  pvp: (a) => Number(a.pvp_ranking_league ?? 0) > 0,
  distance: (a) => Number(a.distance ?? 0) > 0
}
/** "Everything" alarms (pokemon 0, every level) come first whatever the sort. */
const isEverything = (a: Alarm): boolean => a.pokemon_id === 0 || a.level === 90 || (a.reward === 0 && a.reward_type !== undefined)

function AlarmList ({ type }: { type: AlarmTypeDescriptor }) {
  const { t, i18n } = useTranslation()
  const { user, settings } = useSession()
  const { monsters } = useMonsters()
  usePreparedPokemonCatalogue()
  const [raidLevels, setRaidLevels] = useState<RaidLevel[] | null>(null)
  const [alarms, retry, replace] = useLoad(async (signal): Promise<Alarm[]> => await alarmsApi.list(type, signal), [type.path, user.profileNo])
  // `?add=new` (the dashboard's "Add your first alarm") opens the new alarm's editor with the page.
  const [params, setParams] = useSearchParams()
  const [editing, setEditing] = useState<Alarm | 'new' | null>(() => params.get('add') === 'new' ? 'new' : null)
  const [bulkEditing, setBulkEditing] = useState(false)
  const [sharing, setSharing] = useState(false)
  const [selecting, setSelecting] = useState(false)
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const [busy, setBusy] = useState(false)
  const [query, setQuery] = useState('')
  const [sort, setSort] = useState<Sort>('name')
  const [quick, setQuick] = useState<Set<Quick>>(new Set())
  const [announcer, announce] = useAnnouncer()
  const ask = useDialogs()
  const addButton = useRef<HTMLButtonElement>(null)

  // Only raid and egg alarms name their levels. Read for the other types, the answer would come in after
  // the list is drawn and, as a new vocabulary, draw every card and sort the whole list a second time.
  const namesLevels = LEVEL_NAMING_TYPES.has(type.type)
  useEffect(() => { if (namesLevels) void loadRaidLevels().then(setRaidLevels, () => undefined) }, [namesLevels])
  const list = useMemo(() => alarms.status === 'ready' ? alarms.data : [], [alarms])
  // `?edit=<uid>` ("why didn't I get…?": open the alarm that did not match) opens that alarm's editor once the list is in.
  const editUid = params.get('edit')
  // `&field=min_iv` (the filter that stopped it) opens the editor at that field, focused.
  const focusField = params.get('field') ?? undefined
  // A new alarm from an event ("Add an alarm for this"): `?add=new&pokemon_id=129&min_iv=82`, only the type's fields.
  const prefill = useMemo(() => {
    if (params.get('add') !== 'new') return undefined
    const names = new Set(type.fields.map((f) => f.name))
    const given = [...params.entries()].filter(([name, value]) => names.has(name) && /^-?\d{1,6}$/.test(value))
    return given.length === 0 ? undefined : Object.fromEntries(given)
  }, [params, type])
  useEffect(() => {
    if (editUid === null || alarms.status !== 'ready') return
    const found = alarms.data.find((a) => String(a.uid) === editUid)
    if (found !== undefined) setEditing(found)
  }, [editUid, alarms])
  const gymIds = useMemo(() => list.flatMap((a) => typeof a.gym_id === 'string' && a.gym_id !== '' ? [a.gym_id] : []), [list])
  const gymNames = useGymNames(gymIds)
  // Read only for a list that names a move: most raid lists have none, and the names come from the master file.
  const moves = useMoves(list.some((a) => a.move !== undefined && a.move !== null && Number(a.move) !== ANY_MOVE))
  // Made once per language and data: every memoised card and the sorted list are keyed on it, so a new
  // vocabulary on each render of the page would draw every card and sort all 1,000 alarms again.
  const language = i18n.language
  const vocabulary: Vocabulary = useMemo(() => ({
    t,
    monsters,
    raidLevels,
    number: (value, options) => formatNumber(language, value, options),
    numberRange: (start, end, options) => formatNumberRange(language, start, end, options),
    gymNames,
    moves
  }), [t, monsters, raidLevels, language, gymNames, moves])
  useEffect(() => whenIdle(() => { prepareCardFormats(language) }), [language])

  // Each alarm's subject, the name sort's key: worked out once per list and language, not on every re-sort.
  const subjects = useMemo(() => new Map(list.map((alarm) => [alarm, subjectOf(type, alarm, vocabulary)])), [list, type, vocabulary])
  /** Search, quick filters and sort over the loaded list; the sentence of each alarm is what the search reads. */
  const shown = useMemo(() => {
    const collator = nameCollator(i18n.language)
    const q = query.trim().toLocaleLowerCase(i18n.language)
    // The whole sentence of an alarm is dozens of translations: it is built only while a search needs it.
    const matches = (alarm: Alarm): boolean => q === '' || String(alarm.pokemon_id ?? '') === q.replace('#', '') ||
      describeAlarm(type, alarm, vocabulary).toLocaleLowerCase(i18n.language).includes(q)
    const filters = [...quick].map((k) => QUICK[k])
    // Each row's keys worked out once, not in each of the thousands of comparisons a sort makes.
    const rows = list.filter((alarm) => matches(alarm) && filters.every((test) => test(alarm)))
      .map((alarm) => ({ alarm, subject: subjects.get(alarm) ?? '', everything: Number(isEverything(alarm)) }))
    rows.sort((a, b) => {
      const everything = b.everything - a.everything
      if (everything !== 0) return everything
      if (sort === 'newest') return b.alarm.uid - a.alarm.uid
      if (sort === 'number') return Number(a.alarm.pokemon_id ?? a.alarm.level ?? 0) - Number(b.alarm.pokemon_id ?? b.alarm.level ?? 0) || collator.compare(a.subject, b.subject)
      return collator.compare(a.subject, b.subject) || a.alarm.uid - b.alarm.uid
    })
    return rows.map((r) => r.alarm)
  }, [list, subjects, query, quick, sort, type, vocabulary, i18n.language])
  const chosen = list.filter((a) => selected.has(a.uid)).map((a) => a.uid)

  /** Reads the list again without the loading state, so the page does not jump. */
  const refresh = async (): Promise<void> => {
    try {
      replace(await alarmsApi.list(type))
    } catch (err) {
      announce({ message: err instanceof ApiError ? err.message : t('status.failed'), tone: 'error' })
    }
  }

  const act = async (work: () => Promise<void>): Promise<void> => {
    if (busy) return
    setBusy(true)
    try {
      await work()
    } catch (err) {
      announce({ message: err instanceof ApiError ? err.message : t('status.failed'), tone: 'error' })
      await refresh()
    } finally {
      setBusy(false)
    }
  }

  const recreate = (gone: Alarm[]) => async (): Promise<void> => {
    await act(async () => {
      await alarmsApi.createBatch(type, gone.map((a) => recreateBody(type, a)))
      await refresh()
      announce({ message: t('alarms.restored', { count: gone.length }), tone: 'info' })
    })
  }

  const remove = async (uids: number[]): Promise<void> => {
    const gone = list.filter((a) => uids.includes(a.uid))
    if (gone.length === 0) return
    const yes = await ask.confirm({
      title: t('alarms.confirmDelete', { count: gone.length }),
      message: gone.length === 1 ? describeAlarm(type, gone[0] as Alarm, vocabulary) : t('alarms.confirmDeleteMany', { count: gone.length }),
      confirmLabel: t('alarms.delete'),
      danger: true
    })
    if (!yes) return
    await act(async () => {
      const done: Alarm[] = []
      try {
        for (const alarm of gone) {
          await alarmsApi.remove(type, alarm.uid)
          done.push(alarm)
        }
      } finally {
        if (done.length > 0) {
          replace(list.filter((a) => !done.some((d) => d.uid === a.uid)))
          setSelected(new Set())
          announce({ message: t('alarms.deleted', { count: done.length }), tone: 'info', undo: recreate(done) })
        }
      }
    })
  }

  const test = (alarm: Alarm) => act(async () => {
    const { message } = await alarmsApi.testAlert(type.type, alarm.uid)
    announce({ message, tone: 'info' })
  })

  const closeForm = (): void => {
    setEditing(null)
    if (params.size > 0) setParams({}, { replace: true })
    requestAnimationFrame(() => { addButton.current?.focus() })
  }

  /** An edited alarm keeps its place (the engine may give it a new uid); new ones join the list. */
  const finished = (outcome: Outcome): void => {
    closeForm()
    if (outcome.kind === 'saved') {
      replace(list.map((a) => (a.uid === outcome.replaces ? outcome.alarm : a)))
      announce({ message: t('status.saved'), tone: 'info' })
    } else if (outcome.kind === 'created') {
      replace([...list, ...outcome.alarms.filter((n) => !list.some((a) => a.uid === n.uid))])
      announce({ message: t('editor.created', { count: outcome.alarms.length }), tone: 'info' })
    } else {
      announce({ message: t('alarms.unchanged'), tone: 'info' })
    }
    // Changes made elsewhere meanwhile (another device, the bot) come in too; the sort keeps the places.
    void refresh()
  }

  /**
   * Takes a bulk edit back: each changed alarm gets its earlier values of the fields the patch touched.
   * Alarms that had the same earlier values go back together, so a typical undo is one request.
   */
  const revert = (changed: Array<{ before: Alarm, uid: number }>, keys: string[]) => async (): Promise<void> => {
    const groups = new Map<string, { patch: Record<string, unknown>, uids: number[] }>()
    for (const { before, uid } of changed) {
      const body = recreateBody(type, before)
      const patch = Object.fromEntries(keys.map((k) => [k, body[k] ?? null]).filter(([, v]) => v !== null))
      const key = JSON.stringify(patch)
      const group = groups.get(key) ?? { patch, uids: [] as number[] }
      group.uids.push(uid)
      groups.set(key, group)
    }
    await act(async () => {
      for (const { patch, uids } of groups.values()) await alarmsApi.bulkUpdate(type, uids, patch)
      await refresh()
      announce({ message: t('alarms.restored', { count: changed.length }), tone: 'info' })
    })
  }

  const bulkDone = (results: BulkResult[], patch: Record<string, unknown>): void => {
    setBulkEditing(false)
    const byOld = new Map(results.flatMap((r) => (r.alarm !== undefined ? [[r.uid, r.alarm] as const] : [])))
    const changed = results.flatMap((r) => {
      const before = list.find((a) => a.uid === r.uid)
      return r.status === 'updated' && r.alarm !== undefined && before !== undefined ? [{ before, uid: r.alarm.uid }] : []
    })
    replace(list.map((a) => byOld.get(a.uid) ?? a))
    setSelected(new Set(results.map((r) => r.alarm?.uid ?? r.uid)))
    const count = (status: BulkResult['status']) => results.filter((r) => r.status === status).length
    const refused = results.filter((r) => r.status === 'refused')
    announce({
      message: [t('bulk.done', { updated: count('updated'), unchanged: count('unchanged') }), ...(refused.length > 0 ? [t('bulk.refused', { count: refused.length, reason: refused[0]?.reason ?? '' })] : [])].join(' '),
      tone: refused.length > 0 ? 'error' : 'info',
      ...(changed.length > 0 && { undo: revert(changed, Object.keys(patch)) })
    })
  }

  const onSelect = useCallback((uid: number, on: boolean) => {
    setSelected((s) => { const next = new Set(s); if (on) next.add(uid); else next.delete(uid); return next })
  }, [])
  const onEdit = useCallback((alarm: Alarm) => { setEditing(alarm) }, [])
  // The cards are memoised: they get handlers that never change and reach the current actions through a ref.
  const actions = useRef({ remove, test })
  useEffect(() => { actions.current = { remove, test } })
  const onDelete = useCallback((alarm: Alarm) => { void actions.current.remove([alarm.uid]) }, [])
  const onTest = useMemo(() => (type.testAlert ? (alarm: Alarm) => { void actions.current.test(alarm) } : undefined), [type.testAlert])
  const toggleQuick = (k: Quick) => { setQuick((q) => { const next = new Set(q); if (next.has(k)) next.delete(k); else next.add(k); return next }) }
  const typeName = t(`alarms.types.${type.type}`)

  return (
    <>
      {announcer}
      {ask.dialog}
      <div className='toolbar'>
        <button ref={addButton} type='button' className='button button-primary' onClick={() => { setEditing('new') }}>{t('alarms.add')}</button>
        {list.length > 0 && (
          <button type='button' className='button' aria-pressed={selecting} onClick={() => { setSelecting((s) => !s); setSelected(new Set()) }}>
            {selecting ? t('list.doneSelecting') : t('list.select')}
          </button>
        )}
      </div>
      <Dialog
        open={editing !== null}
        variant='sheet'
        title={editing === 'new' ? t('alarms.addTitle', { type: typeName }) : t('alarms.editTitle')}
        onClose={closeForm}
      >
        {editing !== null && <AlarmForm key={editing === 'new' ? 'new' : editing.uid} type={type} alarm={editing === 'new' ? undefined : editing} vocabulary={vocabulary} mine={list} onCancel={closeForm} onDone={finished} {...(editing === 'new' ? { prefill } : { focusField })} />}
      </Dialog>
      <Dialog open={bulkEditing} variant='sheet' title={t('bulk.title', { count: chosen.length })} onClose={() => { setBulkEditing(false) }}>
        {bulkEditing && <BulkEdit type={type} uids={chosen} onCancel={() => { setBulkEditing(false) }} onDone={bulkDone} />}
      </Dialog>
      <Dialog open={sharing} variant='sheet' title={t('sharedSets.shareTitle', { count: chosen.length })} onClose={() => { setSharing(false) }}>
        {sharing && <ShareForm what={{ alarms: chosen.map((uid) => ({ type: type.type, uid })) }} close={() => { setSharing(false) }} />}
      </Dialog>
      <Status state={alarms} retry={retry}>
        {(data) => data.length === 0
          ? <p className='muted'>{t('alarms.empty')}</p>
          : (
            <section aria-label={t('alarms.listLabel', { type: typeName })} className='alarm-section'>
              <div className='list-controls'>
                <label className='visually-hidden' htmlFor={`search-${type.type}`}>{t('list.search')}</label>
                <input id={`search-${type.type}`} className='input' type='search' placeholder={t('list.search')} value={query} onChange={(e) => { setQuery(e.target.value) }} />
                <div className='list-row'>
                  <div className='quick-filters' role='group' aria-label={t('list.quickFilters')}>
                    {(type.type === 'pokemon' ? ['highIv', 'pvp', 'distance'] as Quick[] : ['distance'] as Quick[]).map((k) => (
                      <button key={k} type='button' className='button chip-button' aria-pressed={quick.has(k)} onClick={() => { toggleQuick(k) }}>{t(`list.quick.${k}`)}</button>
                    ))}
                  </div>
                  <label className='sort'>
                    <span className='small'>{t('list.sort')}</span>
                    <select className='select' value={sort} onChange={(e) => { setSort(e.target.value as Sort) }}>
                      {(['name', 'number', 'newest'] as Sort[]).map((s) => <option key={s} value={s}>{t(`list.sortBy.${s}`)}</option>)}
                    </select>
                  </label>
                </div>
                <p className='small muted' role='status'>{t('list.showing', { shown: shown.length, count: data.length })}</p>
              </div>
              <VirtualList
                items={shown}
                render={(alarm) => (
                  <AlarmCard
                    type={type}
                    alarm={alarm}
                    vocabulary={vocabulary}
                    selecting={selecting}
                    selected={selected.has(alarm.uid)}
                    busy={busy}
                    onSelect={onSelect}
                    onEdit={onEdit}
                    onDelete={onDelete}
                    onTest={onTest}
                  />
                )}
              />
              {selecting && (
                <div className='select-bar' role='region' aria-label={t('list.selection')}>
                  <span aria-live='polite'>{t('alarms.selectedCount', { count: chosen.length })}</span>
                  <button type='button' className='button' onClick={() => { setSelected(chosen.length === shown.length ? new Set() : new Set(shown.map((a) => a.uid))) }}>
                    {chosen.length === shown.length ? t('list.selectNone') : t('list.selectShown', { count: shown.length })}
                  </button>
                  <button type='button' className='button' disabled={busy || chosen.length === 0} onClick={() => { setBulkEditing(true) }}>{t('list.editSelected')}</button>
                  {!featureOff(settings, 'disable_sharing') && <button type='button' className='button' disabled={busy || chosen.length === 0} onClick={() => { setSharing(true) }}>{t('sharedSets.shareSelected')}</button>}
                  <button type='button' className='button button-danger' disabled={busy || chosen.length === 0} onClick={() => { void remove(chosen) }}>{t('alarms.deleteSelected', { count: chosen.length })}</button>
                </div>
              )}
            </section>
            )}
      </Status>
    </>
  )
}

/**
 * A row's height as the virtualiser's resize observer reports it, after layout. When a row enters the page
 * there is no report yet: it counts as measured before, or as estimated, never read from the element (that
 * read forces a layout of the whole page in the middle of the commit that adds the rows).
 */
const rowHeight = (element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<Window, Element>): number => {
  const box = entry?.borderBoxSize[0]
  if (box !== undefined) return Math.round(box.blockSize)
  const index = instance.indexFromElement(element)
  return instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index)
}

/**
 * The window's size for the list, read in the frame after the first cards are drawn and on each resize. Read
 * while the cards are being added, it would force a layout of the page in the middle of that commit (a
 * phone's viewport is laid out to be measured); until then the screen's size stands in for it.
 */
function observeWindowSize (instance: Virtualizer<Window, Element>, report: (rect: { width: number, height: number }) => void): (() => void) | undefined {
  const win = instance.scrollElement
  if (win === null) return undefined
  const read = () => { report({ width: win.innerWidth, height: win.innerHeight }) }
  const frame = win.requestAnimationFrame(read)
  win.addEventListener('resize', read, { passive: true })
  return () => {
    win.cancelAnimationFrame(frame)
    win.removeEventListener('resize', read)
  }
}

/** The list's scroll writer: its first write, of the offset the window is at, would only force a layout. */
const scrollWindow = withoutFirstWrite<Window>(windowScroll)

/**
 * The cards in page order, only those near the screen in the document: a list of a thousand alarms stays
 * quick. The drawn cards follow one another in the list's flow, pushed down by the space of the cards
 * above them, so a card whose height is not measured yet never overlaps its neighbours.
 */
function VirtualList ({ items, render }: { items: Alarm[], render: (alarm: Alarm) => React.ReactNode }) {
  const listRef = useRef<HTMLUListElement>(null)
  // Where the list starts, read after the first cards are painted. Until then the first render draws
  // only the cards that can be on screen, none beyond: the three more each way that keep a scroll smooth
  // come with that read, after the first frame instead of in it.
  const [offset, setOffset] = useState<number | null>(null)
  useEffect(() => { setOffset(listRef.current?.offsetTop ?? 0) }, [])
  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: () => 120,
    overscan: offset === null ? 0 : 3,
    scrollMargin: offset ?? 0,
    getItemKey: (i) => items[i]?.uid ?? i,
    initialRect: { width: window.screen.width, height: window.screen.height },
    observeElementRect: observeWindowSize,
    scrollToFn: scrollWindow,
    measureElement: rowHeight
  })
  const rows = virtualizer.getVirtualItems()
  const above = (rows[0]?.start ?? offset ?? 0) - (offset ?? 0)
  return (
    <ul ref={listRef} className='alarm-list virtual' style={{ height: virtualizer.getTotalSize(), paddingTop: above, boxSizing: 'border-box' }}>
      {rows.map((row) => (
        <li key={row.key} ref={virtualizer.measureElement} data-index={row.index} className='alarm-row'>
          {render(items[row.index] as Alarm)}
        </li>
      ))}
    </ul>
  )
}
