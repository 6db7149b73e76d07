import { useEffect, useId, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import { Page } from '../../components/Page'
import { ApiError, quickPicks } from '../../api'
import type { AlarmTypeDescriptor } from '../../alarm-types'
import { AlarmForm } from '../../alarm-kit/AlarmForm'
import { AlarmIcon } from '../../alarm-kit/AlarmIcon'
import type { Vocabulary } from '../../alarm-kit/describe'
import { listItems, type Alarm, type FormValues } from '../../alarm-kit/form-model'
import { ScopeField } from '../../alarm-kit/ScopeField'
import { parseKey } from '../../alarm-kit/selection-key'
import { TemplateInput } from '../../alarm-kit/TemplateInput'
import { ConfirmDialog, Dialog, useDialogs } from '../../components/Dialog'
import { PokemonGridPicker } from '../../pickers/grid'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { loadRaidLevels, monsterName, type RaidLevel } from '../../pickers/game-data'
import { useGymNames, useMonsters } from '../../pickers/useGameData'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'
import '../../alarm-kit/alarms.css'
import './quick-picks.css'

type Entry = Awaited<ReturnType<typeof quickPicks.list>>[number]
type QuickPick = Entry['definition']
/** Whose picks a list or editor is about: the site's (administrators edit them) or the member's own. */
type Owner = 'site' | 'mine'
type Open = { kind: 'edit', owner: Owner, entry: Entry | null } | { kind: 'apply', entry: Entry } | null

const ALARM_TYPES = ['monster', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'maxbattle'] as const
type PickType = typeof ALARM_TYPES[number]
/** Picks say "monster" where the alarm types say "pokemon" (the reference's names). */
const descriptorName = (alarmType: string): string => alarmType === 'monster' ? 'pokemon' : alarmType
const NO_GYMS: string[] = []

/** A category in the member's language: the built-in set's categories are translated, an admin's own shown as typed. */
const categoryName = (t: TFunction, category: string): string => t(`quickPicks.builtInCategories.${category}`, { defaultValue: category })

/**
 * Ready-made sets of alarms: a member applies one to the active profile with their own scope, delivery
 * and exclusions (its alarms are created and remembered) and removes it again (exactly those alarms go).
 * Administrators define the global ones in the same editor members use for their alarms; every member
 * keeps picks of their own in it too, listed apart from the site's and seen by nobody else.
 */
export default function QuickPicks () {
  const { t } = useTranslation()
  const { user } = useSession()
  usePageTitle(t('nav.quickPicks'))
  const [state, retry] = useLoad((signal) => quickPicks.list(signal), [user.profileNo])
  const [open, setOpen] = useState<Open>(null)
  // Announced from here: the list reloads after every change, and the outcome must outlive that.
  const [message, setMessage] = useState<string | null>(null)
  const changed = (outcome: string): void => { setOpen(null); setMessage(outcome); retry() }
  const close = (): void => { setOpen(null) }
  return (
    <Page title={t('quickPicks.title')} intro={t('quickPicks.intro')} status={message}>
      {user.isAdmin && <AdminActions add={() => { setOpen({ kind: 'edit', owner: 'site', entry: null }) }} seeded={changed} />}
      <Status state={state} retry={retry}>
        {(entries) => (
          <>
            <PickList owner='mine' entries={entries.filter((e) => e.definition.scope === 'user')} changed={changed} open={setOpen} />
            <PickList owner='site' entries={entries.filter((e) => e.definition.scope !== 'user')} changed={changed} open={setOpen} />
          </>
        )}
      </Status>
      <Dialog
        open={open !== null}
        variant='sheet'
        title={open === null ? '' : open.kind === 'apply' ? t('quickPicks.applyTitle', { name: open.entry.definition.name }) : open.entry !== null ? t('quickPicks.editTitle', { name: open.entry.definition.name }) : open.owner === 'mine' ? t('quickPicks.mine.newTitle') : t('quickPicks.newTitle')}
        onClose={close}
      >
        {open?.kind === 'edit' && <PickEditor owner={open.owner} pick={open.entry?.definition ?? null} saved={changed} cancel={close} />}
        {open?.kind === 'apply' && <ApplyForm entry={open.entry} applied={changed} cancel={close} />}
      </Dialog>
    </Page>
  )
}

function AdminActions ({ add, seeded }: { add: () => void, seeded: (outcome: string) => void }) {
  const { t } = useTranslation()
  const { busy, error, run } = useSubmit()
  const ask = useDialogs()
  return (
    <div className='stack-tight'>
      <div className='row'>
        <button type='button' className='button button-primary' onClick={add}>{t('quickPicks.add')}</button>
        <button
          type='button' className='button' disabled={busy} onClick={() => {
            void ask.confirm({ title: t('quickPicks.confirmSeed'), confirmLabel: t('quickPicks.seed') }).then(async (yes) => {
              if (!yes) return
              await run(async () => {
                await quickPicks.seed()
                seeded(t('quickPicks.seeded'))
              })
            })
          }}
        >{t('quickPicks.seed')}
        </button>
      </div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      {ask.dialog}
    </div>
  )
}

/**
 * One list of picks with what the member may do to each: apply, re-apply and remove any; edit and delete
 * their own, and administrators the site's. A delete asks first, in a dialog that shows its progress and
 * the server's refusal; a remove shows its progress on its own button.
 */
function PickList ({ owner, entries, changed, open }: { owner: Owner, entries: Entry[], changed: (outcome: string) => void, open: (next: Open) => void }) {
  const { t } = useTranslation()
  const { user } = useSession()
  const { busy, error, run } = useSubmit()
  const deletion = useSubmit()
  const [removing, setRemoving] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<QuickPick | null>(null)
  const mine = owner === 'mine'
  const headingId = mine ? 'my-picks' : 'pick-list'
  const remove = (pick: QuickPick): void => {
    setRemoving(pick.id)
    void run(async () => {
      await quickPicks.unapply(pick.id)
      changed(t('quickPicks.removed', { name: pick.name }))
    }).finally(() => { setRemoving(null) })
  }
  const confirmDelete = (): void => {
    if (deleting === null) return
    const { id, name } = deleting
    void deletion.run(async () => {
      await (mine ? quickPicks.removeMine(id) : quickPicks.remove(id))
      setDeleting(null)
      changed(t('quickPicks.deleted', { name }))
    })
  }
  const editable = mine || user.isAdmin
  // The site's picks by category, in the server's order (category, then the admin's order); a chip shows one.
  const categories = useMemo(() => {
    const groups = new Map<string, Entry[]>()
    for (const entry of entries) {
      const key = mine ? '' : entry.definition.category
      groups.set(key, [...(groups.get(key) ?? []), entry])
    }
    return [...groups]
  }, [entries, mine])
  const [shown, setShown] = useState<string | null>(null)
  return (
    <section className='card stack' aria-labelledby={headingId}>
      <div className='stack-tight'>
        <h2 id={headingId}>{mine ? t('quickPicks.mine.title') : t('quickPicks.listTitle')}</h2>
        {mine && <p className='muted'>{t('quickPicks.mine.intro')}</p>}
      </div>
      {mine && (
        <div className='row'>
          <button type='button' className='button button-primary' onClick={() => { open({ kind: 'edit', owner, entry: null }) }}>{t('quickPicks.mine.add')}</button>
        </div>
      )}
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      {entries.length === 0 && <p className='muted'>{mine ? t('quickPicks.mine.none') : t('quickPicks.none')}</p>}
      {categories.length > 1 && (
        <div className='row pick-chips' role='group' aria-label={t('quickPicks.categories')}>
          <button type='button' className='pick-chip' aria-pressed={shown === null} onClick={() => { setShown(null) }}>{t('quickPicks.allCategories')}</button>
          {categories.map(([category, list]) => (
            <button key={category} type='button' className='pick-chip' aria-pressed={shown === category} onClick={() => { setShown(category) }}>{t('quickPicks.categoryChip', { category: categoryName(t, category), count: list.length })}</button>
          ))}
        </div>
      )}
      {categories.filter(([category]) => shown === null || shown === category).map(([category, list]) => (
        <div key={category} className='stack-tight'>
          {categories.length > 1 && <h3 className='pick-category'>{categoryName(t, category)}</h3>}
          <ul className='list pick-grid'>
            {list.map((entry) => <PickItem key={entry.definition.id} entry={entry} owner={owner} editable={editable} busy={busy} removing={removing === entry.definition.id} remove={remove} open={open} setDeleting={(pick) => { deletion.setError(null); setDeleting(pick) }} />)}
          </ul>
        </div>
      ))}
      <ConfirmDialog
        open={deleting !== null}
        title={deleting === null ? '' : mine ? t('quickPicks.mine.confirmDelete', { name: deleting.name }) : t('quickPicks.confirmDelete', { name: deleting.name })}
        confirmLabel={t('dialog.delete')}
        busy={deletion.busy}
        busyLabel={t('quickPicks.deleting')}
        error={deletion.error}
        danger
        onConfirm={confirmDelete}
        onCancel={() => { if (!deletion.busy) setDeleting(null) }}
      >
        {mine && <p>{t('quickPicks.mine.alarmsStay')}</p>}
      </ConfirmDialog>
    </section>
  )
}

interface PickItemProps {
  entry: Entry
  owner: Owner
  editable: boolean
  busy: boolean
  removing: boolean
  remove: (pick: QuickPick) => void
  open: (next: Open) => void
  setDeleting: (pick: QuickPick) => void
}

/** One pick with the game's icon of its alarm, what it is, whether it is applied, and what the member may do to it. */
function PickItem ({ entry, owner, editable, busy, removing, remove, open, setDeleting }: PickItemProps) {
  const { t } = useTranslation()
  const { definition: pick, appliedState: applied } = entry
  const mine = owner === 'mine'
  return (
    <li className='list-item stack pick-item'>
      <div className='pick-head'>
        <span className='pick-icon' aria-hidden='true'><AlarmIcon type={descriptorName(pick.alarmType)} alarm={pick.filters} label='' /></span>
        <div className='stack-tight'>
          <strong>{pick.name}</strong>
          <span className='small muted'>{mine ? t(`quickPicks.types.${pick.alarmType}`) : [...new Set([categoryName(t, pick.category), t(`quickPicks.types.${pick.alarmType}`)])].join(' · ')}{!pick.enabled && ` · ${t('quickPicks.disabled')}`}</span>
          {pick.description !== null && <span>{pick.description}</span>}
          {applied !== null && (
            <span className='badge'>
              {t('quickPicks.appliedState', { count: applied.trackedUids.length })}
              {applied.excludePokemonIds.length > 0 && ` · ${t('quickPicks.excludedState', { count: applied.excludePokemonIds.length })}`}
            </span>
          )}
        </div>
      </div>
      <div className='row'>
        {pick.enabled && (
          <button type='button' className={applied === null ? 'button button-primary' : 'button'} disabled={busy} onClick={() => { open({ kind: 'apply', entry }) }}>
            {applied === null ? t('quickPicks.apply', { name: pick.name }) : t('quickPicks.reapply', { name: pick.name })}
          </button>
        )}
        {applied !== null && (
          <button type='button' className='button' disabled={busy} aria-busy={removing} onClick={() => { remove(pick) }}>
            {removing ? t('quickPicks.removing') : t('quickPicks.remove', { name: pick.name })}
          </button>
        )}
        {editable && (
          <>
            <button type='button' className='button' disabled={busy} onClick={() => { open({ kind: 'edit', owner, entry }) }}>{t('quickPicks.edit', { name: pick.name })}</button>
            <button type='button' className='button button-danger' disabled={busy} onClick={() => { setDeleting(pick) }}>
              {mine ? t('quickPicks.mine.delete', { name: pick.name }) : t('quickPicks.delete', { name: pick.name })}
            </button>
          </>
        )}
      </div>
    </li>
  )
}

/** The words the alarm editor describes an alarm with, as the alarm pages build them. */
function useVocabulary (): Vocabulary {
  const { t } = useTranslation()
  const format = useFormat()
  const { monsters } = useMonsters()
  const [raidLevels, setRaidLevels] = useState<RaidLevel[] | null>(null)
  useEffect(() => { void loadRaidLevels().then(setRaidLevels, () => undefined) }, [])
  const gymNames = useGymNames(NO_GYMS)
  return useMemo(() => ({ t, monsters, raidLevels, number: format.number, numberRange: format.numberRange, gymNames }), [t, monsters, raidLevels, format.number, format.numberRange, gymNames])
}

/**
 * A pick's name, description and type, and its alarm in the alarm editor itself; the editor hands back
 * the filled alarm, which becomes the pick's filters. The site's picks (administrators) also have a
 * category and can be withheld from members; a member's own go to their own list. A refused save is
 * shown in the editor, which keeps what was entered.
 */
function PickEditor ({ owner, pick, saved, cancel }: { owner: Owner, pick: QuickPick | null, saved: (outcome: string) => void, cancel: () => void }) {
  const { t } = useTranslation()
  const { allAlarmTypes } = useSession()
  const vocabulary = useVocabulary()
  const [name, setName] = useState(pick?.name ?? '')
  const [description, setDescription] = useState(pick?.description ?? '')
  const [category, setCategory] = useState(pick?.category ?? '')
  const [enabled, setEnabled] = useState(pick?.enabled ?? true)
  const offered = ALARM_TYPES.filter((type) => allAlarmTypes.some((d) => d.type === descriptorName(type)))
  const [alarmType, setAlarmType] = useState<PickType>(() => (pick?.alarmType as PickType | undefined) ?? 'monster')
  const [nameError, setNameError] = useState<string | null>(null)
  const descriptor = allAlarmTypes.find((d) => d.type === descriptorName(alarmType))
  // The pick's own alarm while its type is unchanged; a new type starts from that type's defaults.
  const alarm = pick !== null && pick.alarmType === alarmType ? { uid: 0, ...pick.filters } as Alarm : undefined

  const save = async (filters: Record<string, unknown>): Promise<void> => {
    if (name.trim() === '') {
      setNameError(t('fields.errors.required'))
      document.getElementById('pick-name')?.focus()
      return
    }
    const common = { name: name.trim(), description: description.trim() === '' ? null : description.trim(), alarmType, filters }
    if (owner === 'mine') await quickPicks.saveMine(common, pick?.id)
    else await quickPicks.save({ ...(pick !== null && { id: pick.id }), ...common, ...(category.trim() !== '' && { category: category.trim() }), enabled })
    saved(t('quickPicks.saved', { name: name.trim() }))
  }

  return (
    <div className='stack'>
      <div className='field'>
        <label className='label' htmlFor='pick-name'>{t('quickPicks.name')}</label>
        <input
          id='pick-name' className='input' required maxLength={200} value={name} aria-invalid={nameError !== null}
          aria-describedby={nameError !== null ? 'pick-name-error' : undefined}
          onChange={(e) => { setName(e.target.value); setNameError(null) }}
        />
        {nameError !== null && <p id='pick-name-error' className='field-error'>{nameError}</p>}
      </div>
      <div className='field'>
        <label className='label' htmlFor='pick-description'>{t('quickPicks.description')}</label>
        <input id='pick-description' className='input' maxLength={2000} value={description} onChange={(e) => { setDescription(e.target.value) }} />
      </div>
      {owner === 'site' && (
        <div className='field'>
          <label className='label' htmlFor='pick-category'>{t('quickPicks.category')}</label>
          <input id='pick-category' className='input' maxLength={50} value={category} onChange={(e) => { setCategory(e.target.value) }} />
        </div>
      )}
      <div className='field'>
        <label className='label' htmlFor='pick-type'>{t('quickPicks.alarmType')}</label>
        <select id='pick-type' className='select' value={alarmType} onChange={(e) => { setAlarmType(e.target.value as PickType) }}>
          {offered.map((type) => <option key={type} value={type}>{t(`quickPicks.types.${type}`)}</option>)}
        </select>
      </div>
      {owner === 'site' && (
        <label className='check'>
          <input type='checkbox' checked={enabled} onChange={(e) => { setEnabled(e.target.checked) }} />
          <span>{t('quickPicks.enabled')}</span>
        </label>
      )}
      {descriptor === undefined
        ? <p className='notice notice-warning'>{t('quickPicks.typeUnknown')}</p>
        : <AlarmForm key={alarmType} type={descriptor} alarm={alarm} vocabulary={vocabulary} onSubmitBody={save} onDone={cancel} onCancel={cancel} />}
    </div>
  )
}

/** Every pokemon but some: a pick for every pokemon leaves species out with the pokémon grid. */
const excludable = (pick: QuickPick): boolean => pick.alarmType === 'monster' && (pick.filters.pokemon_id ?? 0) === 0
/** The species of a pick for a set of pokémon ("all except…" unticks some of them), or null. */
const speciesSet = (pick: QuickPick): number[] | null => {
  const ids = pick.filters.pokemon_id
  return pick.alarmType === 'monster' && Array.isArray(ids) && ids.length > 1 ? ids.map(Number) : null
}

/**
 * A member's apply: where the alarms are delivered (the profile's areas, a radius or chosen areas),
 * the template, auto-delete, and for "every pokemon" picks the species to leave out. The answer says
 * how many alarms were created and how many were already there; a refusal keeps the form open.
 */
function ApplyForm ({ entry, applied, cancel }: { entry: Entry, applied: (outcome: string) => void, cancel: () => void }) {
  const { t, i18n } = useTranslation()
  const { allAlarmTypes } = useSession()
  const { definition: pick, appliedState } = entry
  const { monsters } = useMonsters()
  const set = speciesSet(pick)
  const descriptor = allAlarmTypes.find((d) => d.type === descriptorName(pick.alarmType)) as AlarmTypeDescriptor | undefined
  const [excluded, setExcluded] = useState<string[]>(() => (appliedState?.excludePokemonIds ?? []).map((id) => `${id}-0`))
  const [scope, setScope] = useState<FormValues>(() => ({ distance: String(pick.filters.distance ?? 0), override_areas: '' }))
  const [template, setTemplate] = useState(typeof pick.filters.template === 'string' || typeof pick.filters.template === 'number' ? String(pick.filters.template) : '')
  const storedClean = Number(pick.filters.clean ?? 0)
  const [autoDelete, setAutoDelete] = useState((storedClean & 1) === 1)
  const { busy, error, setError, run } = useSubmit()
  const headingId = useId()
  const distance = Number(scope.distance)
  const distanceError = scope.distance !== undefined && scope.distance.trim() !== '' && (!Number.isInteger(distance) || distance < 0) ? t('fields.errors.wholeNumber') : undefined

  const submit = (event: React.FormEvent): void => {
    event.preventDefault()
    if (distanceError !== undefined) return
    const areas = listItems(scope.override_areas ?? '')
    const excludeIds = [...new Set(excluded.map((key) => parseKey(key).pokemonId).filter((id) => id > 0))]
    const body = {
      distance: Number.isInteger(distance) ? distance : 0,
      ...(areas.length > 0 && { overrideAreas: areas }),
      ...(template.trim() !== '' && { template: template.trim() }),
      // The other bits of clean the pick carries (edit in place, summaries) stay as they are.
      clean: (storedClean & ~1) | (autoDelete ? 1 : 0),
      ...(excludeIds.length > 0 && { excludePokemonIds: excludeIds })
    }
    void run(async () => {
      const verb = appliedState === null ? 'apply' : 'reapply'
      const answer = await quickPicks.apply(pick.id, verb, body)
      const created = answer.added.length
      // The member's own alarms are never changed by a pick: each left-out alarm is told with why.
      const count = (reasons: string[]) => answer.skipped.filter((s) => reasons.includes(s.reason)).length
      const parts = ([
        ['quickPicks.existingCount', count(['already-have', 'repeated'])],
        ['quickPicks.keptYoursCount', count(['would-change-yours', 'same-key'])],
        ['quickPicks.refusedCount', count(['refused'])]
      ] as const).filter(([, n]) => n > 0).map(([key, n]) => t(key, { count: n }))
      applied(parts.length === 0
        ? t('quickPicks.applied', { name: pick.name, count: created })
        : t('quickPicks.appliedWithExisting', { name: pick.name, created: t('quickPicks.createdCount', { count: created }), existing: new Intl.ListFormat(i18n.language, { type: 'conjunction' }).format(parts) }))
    }, (err) => { setError(t('quickPicks.refused', { name: pick.name, reason: err instanceof ApiError ? err.message : t('status.failed') })) })
  }

  return (
    <form className='alarm-form stack' aria-labelledby={headingId} noValidate onSubmit={submit} aria-busy={busy}>
      <h3 id={headingId} className='visually-hidden'>{t('quickPicks.applyTitle', { name: pick.name })}</h3>
      {pick.description !== null && <p className='muted'>{pick.description}</p>}
      {set !== null && (
        <fieldset className='field' aria-describedby='pick-except-help'>
          <legend className='label'>{t('quickPicks.allExcept')}</legend>
          <p id='pick-except-help' className='help'>{t('quickPicks.allExceptHelp', { count: set.length - set.filter((id) => excluded.includes(`${id}-0`)).length, total: set.length })}</p>
          <div className='pick-species'>
            {set.map((id) => (
              <label key={id} className='check'>
                <input type='checkbox' checked={!excluded.includes(`${id}-0`)} onChange={(e) => { setExcluded((list) => e.target.checked ? list.filter((key) => key !== `${id}-0`) : [...list, `${id}-0`]) }} />
                <span>{monsterName(monsters, id)}</span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {excludable(pick) && (
        <div className='field'>
          <PokemonGridPicker selected={excluded} onChange={setExcluded} label={t('quickPicks.exclude')} describedBy='pick-exclude-help' />
          <p id='pick-exclude-help' className='help'>{t('quickPicks.excludeHelp')}</p>
        </div>
      )}
      {descriptor !== undefined && <ScopeField type={descriptor} values={scope} errors={distanceError === undefined ? {} : { distance: distanceError }} set={(changes) => { setScope((s) => ({ ...s, ...changes })) }} />}
      <div className='field'>
        <label className='label' htmlFor='pick-template'>{t('alarms.fields.template')}</label>
        <TemplateInput id='pick-template' type={descriptor?.type ?? 'pokemon'} value={template} onChange={setTemplate} />
      </div>
      <label className='check'>
        <input type='checkbox' checked={autoDelete} onChange={(e) => { setAutoDelete(e.target.checked) }} />
        <span>{t('quickPicks.autoDelete')}</span>
      </label>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      <div className='form-actions sticky-actions'>
        <button type='submit' className='button button-primary' disabled={busy}>
          {busy ? t('status.saving') : appliedState === null ? t('quickPicks.apply', { name: pick.name }) : t('quickPicks.reapply', { name: pick.name })}
        </button>
        <button type='button' className='button' onClick={cancel}>{t('alarms.cancel')}</button>
      </div>
    </form>
  )
}
