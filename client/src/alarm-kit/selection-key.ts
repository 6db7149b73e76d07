/** A pokemon selection key of the picker: `"<pokemonId>-<formId>"`; `"0-0"` is every pokemon. */
export const selectionKey = (pokemonId: number, form: number): string => `${pokemonId}-${form}`

export const parseKey = (key: string): { pokemonId: number, form: number } => {
  const [id, form] = key.split('-').map(Number)
  return { pokemonId: id ?? 0, form: form ?? 0 }
}
