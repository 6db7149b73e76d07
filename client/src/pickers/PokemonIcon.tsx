import { useState } from 'react'
import { pokemonIcon } from './game-data'

/** A pokemon sprite from the UICONS base; when the image cannot be loaded only the name (next to it) remains. */
export function PokemonIcon ({ base, id, form }: { base: string | null, id: number, form: number }) {
  const [broken, setBroken] = useState(false)
  if (base === null || broken || id <= 0 || id >= 9000) return null
  return <img className='pokemon-icon' src={pokemonIcon(base, id, form)} alt='' width={40} height={40} loading='lazy' onError={() => { setBroken(true) }} />
}
