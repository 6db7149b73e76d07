import { GameIcon } from '../icons'

/**
 * A pokemon sprite resolved through the pokemon icon set's index (the form's sprite, else the base
 * sprite, else the set's "?"), or a named placeholder; `label` is its text alternative.
 */
export function PokemonIcon ({ id, form, label, size = 40 }: { id: number, form: number, label: string, size?: number }) {
  if (id <= 0 || id >= 9000) return null
  return <GameIcon icon={{ kind: 'pokemon', id, form }} label={label} size={size} />
}
