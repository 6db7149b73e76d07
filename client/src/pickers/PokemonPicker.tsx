import { useId, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { monsterName } from './game-data'
import { PokemonIcon } from './PokemonIcon'
import { useMonsters } from './useGameData'

const MAX_RESULTS = 24

interface Props {
  /** Id of the element the field's label and help point at. */
  inputId: string
  describedBy: string | undefined
  /** null: nothing chosen yet. */
  pokemonId: number | null
  form: number
  /** Offer 0, "every pokemon". */
  allowEverything: boolean
  invalid: boolean
  onChange: (pokemonId: number, form: number) => void
}

/**
 * Pokemon by name, number or form name: a search box and the matches as buttons with their sprite. The
 * number of matches is announced; with the engine's names unreachable a number can still be typed.
 */
export function PokemonPicker ({ inputId, describedBy, pokemonId, form, allowEverything, invalid, onChange }: Props) {
  const { t } = useTranslation()
  const { monsters, iconBase, failed } = useMonsters()
  const [query, setQuery] = useState('')
  const resultsId = useId()

  const matches = useMemo(() => {
    const q = query.trim().toLowerCase()
    if (q === '' || monsters === null) return []
    const number = /^#?\d+$/.test(q) ? Number(q.replace('#', '')) : null
    return monsters.filter((m) => number !== null
      ? String(m.id).startsWith(String(number))
      : m.name.toLowerCase().includes(q) || m.form.name.toLowerCase().includes(q)).slice(0, MAX_RESULTS)
  }, [query, monsters])

  const typedNumber = /^\d+$/.test(query.trim()) ? Number(query.trim()) : null
  const selected = pokemonId === null ? t('pickers.nothingYet') : pokemonId === 0 ? t('pickers.everyPokemon') : monsterName(monsters, pokemonId, form)

  return (
    <div className='picker'>
      <p className='picker-current' aria-live='polite'>
        <PokemonIcon base={iconBase} id={pokemonId ?? 0} form={form} />
        <span>{t('pickers.selected', { name: selected })}</span>
      </p>
      <input
        id={inputId}
        className='input'
        type='search'
        autoComplete='off'
        value={query}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        aria-controls={resultsId}
        placeholder={t('pickers.searchPokemon')}
        onChange={(e) => { setQuery(e.target.value) }}
      />
      {failed && <p className='small muted'>{t('pickers.namesUnavailable')}</p>}
      <div id={resultsId}>
        {query.trim() !== '' && (
          <p className='small muted' role='status'>{t('pickers.matches', { count: matches.length })}</p>
        )}
        <ul className='picker-options'>
          {allowEverything && query.trim() === '' && pokemonId !== 0 && (
            <li><button type='button' className='picker-option' onClick={() => { onChange(0, 0) }}>{t('pickers.everyPokemon')}</button></li>
          )}
          {failed && typedNumber !== null && (
            <li><button type='button' className='picker-option' onClick={() => { onChange(typedNumber, 0); setQuery('') }}>{t('pickers.useNumber', { number: typedNumber })}</button></li>
          )}
          {matches.map((m) => (
            <li key={`${m.id}_${m.form.id}`}>
              <button
                type='button'
                className='picker-option'
                aria-pressed={m.id === pokemonId && m.form.id === form}
                onClick={() => { onChange(m.id, m.form.id); setQuery('') }}
              >
                <PokemonIcon base={iconBase} id={m.id} form={m.form.id} />
                <span>{monsterName(monsters, m.id, m.form.id)} <span className='muted'>#{m.id}</span></span>
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
