/**
 * Pickers for the alarm editor. The contract (keep it stable; the editor builds on it):
 *
 * `PokemonGridPicker` — pokemon as a virtualised grid of sprite tiles.
 *   props: { selected: string[]; onChange: (keys: string[]) => void; allowEverything?: boolean; label: string;
 *            multiple?: boolean; seenNow?: SeenNowSource }
 *   A key is `"<pokemonId>-<formId>"`: `"0-0"` = everything (offered when `allowEverything`), form 0 = every
 *   form of that species. `multiple` defaults to true; false = one pokemon, a tap replaces the choice.
 *   The picker loads the game data and icons itself; `onChange` receives the whole new list in the order
 *   chosen. `seenNow` says what its "seen now" filter narrows to (wild spawns by default, raid bosses,
 *   power-spot pokémon, today's quest rewards); raid bosses and power spots start narrowed.
 *
 * `ChoiceGridPicker` — icon tiles for everything that is not a pokemon.
 *   props: { kind: 'raidLevel' | 'maxLevel' | 'egg' | 'grunt' | 'lure' | 'team' | 'item' | 'reward';
 *            selected: string[]; onChange: (values: string[]) => void; label: string; multiple?: boolean }
 *   Values are what the engine stores, as strings:
 *   - raidLevel / egg: raid levels "1".."19", "90" = every level;
 *   - maxLevel: max battle levels "1".."5", "7", "8" (Gigantamax), "9000" = any level;
 *   - grunt: `grunt_type` — the engine's grunt types in lower case ("fire", "mixed"), leaders "cliff",
 *     "arlo", "sierra", "giovanni", PokéStop events "kecleon", "gold-stop", "showcase";
 *   - lure: `lure_id` "0" (any), "501".."506";
 *   - team: "0".."3", "4" = any team;
 *   - item: quest item ids ("0" = any item), several at once;
 *   - reward: quest `reward_type` "7" pokemon, "2" item, "12" mega energy, "4" candy, "3" stardust.
 *   `multiple` defaults to true.
 *
 * `usePreparedPokemonCatalogue()` — on a page whose editor may open the pokemon grid: builds the grid's
 *   catalogue in idle time once the game data is in, so the grid's first render does not.
 */
export { PokemonGridPicker, EVERYTHING, type PokemonGridPickerProps } from './PokemonGridPicker'
export { ChoiceGridPicker, type ChoiceGridPickerProps } from './ChoiceGridPicker'
export type { ChoiceKind } from './choices'
export type { SeenNowSource } from './seen-now'
export { usePreparedPokemonCatalogue } from './usePokemonCatalogue'
