import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { masterdata } from '../api'
import { useFormat } from '../i18n/format'
import { gymLabel, loadGym, type Gym } from './game-data'
import './pickers.css'

/** The server's own limits: searches need 2 characters; 20 answers is the reference's page. */
const MIN_SEARCH = 2
const RESULTS = 20
/** Typing pauses this long before a search is sent, so a name typed quickly costs one request. */
const DEBOUNCE_MS = 300

type Search = { state: 'idle' | 'short' | 'searching' | 'failed' } | { state: 'done', gyms: Gym[] }

interface Props {
  /** Id of the element the field's label and help point at. */
  inputId: string
  describedBy: string | undefined
  /** The stored gym id; '' is "any gym". */
  value: string
  invalid: boolean
  onChange: (gymId: string) => void
}

/**
 * A gym chosen by name from the scanner's gyms: an ARIA combobox (type, arrow keys, Enter; Escape closes)
 * whose options show each gym's name and area, storing the gym's id. "Any gym" (no id) is the default and
 * stays one button away. A stored id is shown by its name, read from the scanner.
 */
export function GymPicker ({ inputId, describedBy, value, invalid, onChange }: Props) {
  const { t } = useTranslation()
  const format = useFormat()
  const listId = useId()
  const statusId = useId()
  const [query, setQuery] = useState('')
  const [search, setSearch] = useState<Search>({ state: 'idle' })
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  /** The gym of `value` once known; `gym` null: the scanner does not know the id. */
  const [known, setKnown] = useState<{ id: string, gym: Gym | null } | null>(null)
  const picked = useRef<Gym | null>(null)

  // A stored id (an opened alarm) is shown by its name; a gym just picked from the list is known already.
  useEffect(() => {
    if (value === '') return
    if (picked.current?.id === value) { setKnown({ id: value, gym: picked.current }); return }
    let live = true
    loadGym(value).then((gym) => { if (live) setKnown({ id: value, gym }) }, () => { if (live) setKnown({ id: value, gym: null }) })
    return () => { live = false }
  }, [value])

  useEffect(() => {
    const term = query.trim()
    setActive(-1)
    if (term.length < MIN_SEARCH) {
      setSearch({ state: term === '' ? 'idle' : 'short' })
      setOpen(false)
      return
    }
    const abort = new AbortController()
    const timer = setTimeout(() => {
      setSearch({ state: 'searching' })
      masterdata.searchGyms(term, RESULTS, abort.signal).then((gyms) => {
        setSearch({ state: 'done', gyms })
        setOpen(gyms.length > 0)
      }, () => {
        if (!abort.signal.aborted) setSearch({ state: 'failed' })
      })
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      abort.abort()
    }
  }, [query])

  const gyms = search.state === 'done' ? search.gyms : []
  // A gym outside every admin area is placed by its coordinates.
  const where = (gym: Gym): string => gym.area ?? t('pickers.gym.coordinates', { lat: format.number(gym.lat, { maximumFractionDigits: 4 }), lon: format.number(gym.lon, { maximumFractionDigits: 4 }) })
  const optionId = (index: number): string => `${listId}-${index}`

  const choose = (gym: Gym): void => {
    picked.current = gym
    onChange(gym.id)
    setQuery('')
    setOpen(false)
  }

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>): void => {
    if (event.key === 'ArrowDown' && gyms.length > 0) {
      event.preventDefault()
      setOpen(true)
      setActive((i) => Math.min(i + 1, gyms.length - 1))
    } else if (event.key === 'ArrowUp' && open) {
      event.preventDefault()
      setActive((i) => Math.max(i - 1, 0))
    } else if (event.key === 'Enter' && open && gyms[active] !== undefined) {
      // The choice, not a submit of the alarm form.
      event.preventDefault()
      choose(gyms[active])
    } else if (event.key === 'Escape' && (open || query !== '')) {
      event.preventDefault()
      if (open) setOpen(false)
      else setQuery('')
    }
  }

  const selected = value === ''
    ? t('pickers.gym.any')
    : known?.id !== value ? value : known.gym === null ? t('pickers.gym.unknown', { id: value }) : `${gymLabel(known.gym)} (${where(known.gym)})`
  const status = search.state === 'short'
    ? t('pickers.gym.minChars')
    : search.state === 'searching'
      ? t('pickers.gym.searching')
      : search.state === 'failed'
        ? t('pickers.gym.failed')
        : search.state === 'done'
          ? (gyms.length === 0 ? t('pickers.gym.none', { search: query.trim() }) : t('pickers.matches', { count: gyms.length }))
          : ''

  return (
    <div className='picker gym-picker'>
      <p className='picker-current' aria-live='polite'>
        <span>{t('pickers.selected', { name: selected })}</span>
        {value !== '' && <button type='button' className='button' onClick={() => { onChange('') }}>{t('pickers.gym.useAny')}</button>}
      </p>
      <div className='combobox'>
        <input
          id={inputId}
          className='input'
          type='text'
          role='combobox'
          autoComplete='off'
          aria-autocomplete='list'
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
          aria-describedby={[describedBy, statusId].filter((id) => id !== undefined).join(' ')}
          aria-invalid={invalid}
          placeholder={t('pickers.gym.search')}
          value={query}
          onChange={(e) => { setQuery(e.target.value) }}
          onKeyDown={onKeyDown}
          onFocus={() => { if (gyms.length > 0) setOpen(true) }}
          onBlur={() => { setOpen(false) }}
        />
        <ul id={listId} role='listbox' aria-label={t('pickers.gym.results')} className='combobox-list' hidden={!open}>
          {gyms.map((gym, index) => (
            <li
              key={gym.id}
              id={optionId(index)}
              role='option'
              aria-selected={index === active}
              className='combobox-option'
              // Keeps the focus in the input, so the click lands before the list closes on blur.
              onMouseDown={(e) => { e.preventDefault() }}
              onClick={() => { choose(gym) }}
            >
              <span>{gymLabel(gym)}</span>
              <span className='small muted'>{where(gym)}</span>
            </li>
          ))}
        </ul>
      </div>
      <p id={statusId} className='small muted' role='status'>{status}</p>
    </div>
  )
}
