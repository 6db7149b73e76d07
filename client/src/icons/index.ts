/**
 * Game icons from UICONS sets: `<GameIcon icon={{ kind: 'pokemon', id: 25, form: 598 }} label='Pikachu' />`
 * draws the most specific icon the category's set holds (its index.json decides, with the standard's
 * fallback chain), or a named placeholder. Sets come from the site's `uicons_*` settings (docs/icons.md).
 */
export { GameIcon, IconImage } from './GameIcon'
export { iconUrl, loadIconSet, useIconSets } from './icon-sets'
export { candidates, categoryOf, IconSet, lookup, resolve, type IconCategory, type IconRequest, type RewardKind } from './uicons'
