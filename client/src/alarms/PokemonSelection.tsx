import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { monsterName } from '../pickers/game-data'
import { PokemonIcon } from '../pickers/PokemonIcon'
import { PokemonPicker } from '../pickers/PokemonPicker'
import { useMonsters } from '../pickers/useGameData'

export interface PokemonSelectionProps {
  /** `"<pokemonId>-<formId>"`; `"0-0"` is every pokemon. */
  selected: string[]
  onChange: (keys: string[]) => void
  allowEverything?: boolean
  label: string
}

export const selectionKey = (pokemonId: number, form: number): string => `${pokemonId}-${form}`
export const parseKey = (key: string): { pokemonId: number, form: number } => {
  const [id, form] = key.split('-').map(Number)
  return { pokemonId: id ?? 0, form: form ?? 0 }
}

/**
 * Many pokemon at once: the chosen ones as removable chips, and the search picker adding to them. The
 * props are those of the sprite grid picker, so the editor swaps one for the other in one line.
 */
export function PokemonSelection ({ selected, onChange, allowEverything = true, label }: PokemonSelectionProps) {
  const { t } = useTranslation()
  const { monsters, iconBase } = useMonsters()
  const inputId = useId()
  const last = selected.length > 0 ? parseKey(selected[selected.length - 1] as string) : null
  const name = (key: string): string => {
    const { pokemonId, form } = parseKey(key)
    return pokemonId === 0 ? t('pickers.everyPokemon') : monsterName(monsters, pokemonId, form)
  }
  return (
    <fieldset className='field selection'>
      <legend className='label'>{label}</legend>
      <p className='small muted' aria-live='polite'>{t('editor.selectedCount', { count: selected.length })}</p>
      {selected.length > 0 && (
        <ul className='chips'>
          {selected.map((key) => {
            const { pokemonId, form } = parseKey(key)
            return (
              <li key={key} className='chip'>
                <PokemonIcon base={iconBase} id={pokemonId} form={form} />
                <span>{name(key)}</span>
                <button type='button' className='chip-remove' aria-label={t('editor.remove', { name: name(key) })} onClick={() => { onChange(selected.filter((k) => k !== key)) }}>✕</button>
              </li>
            )
          })}
        </ul>
      )}
      <label className='visually-hidden' htmlFor={inputId}>{t('alarms.fields.pokemon_id')}</label>
      <PokemonPicker
        inputId={inputId}
        describedBy={undefined}
        pokemonId={last?.pokemonId ?? null}
        form={last?.form ?? 0}
        allowEverything={allowEverything && !selected.includes('0-0')}
        invalid={false}
        onChange={(pokemonId, form) => {
          const key = selectionKey(pokemonId, form)
          if (!selected.includes(key)) onChange([...selected, key])
        }}
      />
    </fieldset>
  )
}
