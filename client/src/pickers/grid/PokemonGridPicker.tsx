import { elementScroll, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual'
import { memo, useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { withoutFirstWrite } from '../../components/virtual-scroll'
import { whenIdle } from '../../shell/idle'
import { IconImage, iconUrl, useIconSets, type IconCategory, type IconSet } from '../../icons'
import type { Tile } from './catalogue'
import { activeFacetCount, facetMatcher, noFacets, type Facets } from './facets'
import { ActiveFacets } from './ActiveFacets'
import { FacetPanel } from './FacetPanel'
import { compileSearch, matchedLetters } from './search'
import { SelectedStrip } from './SelectedStrip'
import { useSeenNow, type SeenNowSource } from './seen-now'
import { usePokemonCatalogue } from './usePokemonCatalogue'
import './picker.css'

export interface PokemonGridPickerProps {
  /** Keys `"<pokemonId>-<formId>"`; `"0-0"` = every pokemon, form 0 = every form of the species. */
  selected: string[]
  onChange: (keys: string[]) => void
  /** Offer "Everything" (`"0-0"`) as the first choice. */
  allowEverything?: boolean
  /** The picker's visible name (also its accessible name). */
  label: string
  /** false: one pokemon at a time (a tap replaces the choice). Default true. */
  multiple?: boolean
  /** Ids of the help and error texts of a form field holding the picker; `invalid` marks it wrong. */
  describedBy?: string | undefined
  invalid?: boolean
  /**
   * What "seen now" narrows to (seen-now.ts): wild spawns by default; raid bosses and power-spot pokémon
   * start narrowed to the current ones, since a boss that is not in rotation cannot be met.
   */
  seenNow?: SeenNowSource
}

/** Sources whose picker starts narrowed to what is seen now. */
const NARROWED_FIRST: ReadonlySet<SeenNowSource> = new Set(['raidBosses', 'maxBattles'])

export const EVERYTHING = '0-0'
const ROW_HEIGHT = 112
const PHONE_WIDTH = 480
const TILE_WIDTH = 112

/**
 * The grid's height, set here alone: most of a phone's screen, at most 34rem. The style below uses it, and
 * so does the grid's first size, worked out once when the grid appears: the rows of the first commit are
 * then the rows on screen, and the resize observer's first report (the real size, after layout) changes
 * nothing, instead of drawing the grid again in the next frame.
 */
const GRID_SHARE = 0.6
const GRID_MAX_REM = 34
const GRID_HEIGHT = `min(${GRID_SHARE * 100}vh, ${GRID_MAX_REM}rem)`

/**
 * Read once, as the grid first renders and before its commit changes the page: nothing is waiting to be
 * laid out then, so the reads force no layout. Read on later renders (after a keystroke has changed the
 * page) they would.
 */
const firstRect = (): { width: number, height: number } => {
  const rem = Number.parseFloat(getComputedStyle(document.documentElement).fontSize) || 16
  return { width: window.innerWidth, height: Math.min(window.innerHeight * GRID_SHARE, GRID_MAX_REM * rem) }
}

/** Columns for a grid this wide: 3 on a phone, more on wider screens (up to 8). */
const columnsFor = (width: number): number => width < PHONE_WIDTH ? 3 : Math.max(4, Math.min(8, Math.floor(width / TILE_WIDTH)))

export const tileLabel = (tile: Tile): string => tile.formName === '' ? tile.name : `${tile.name} (${tile.formName})`

/** The scrolled window's size as its resize observer reports it (the first report included), never read in between. */
function observeSize (instance: Virtualizer<HTMLDivElement, Element>, report: (rect: { width: number, height: number }) => void): () => void {
  const element = instance.scrollElement
  if (element === null) return () => undefined
  const observer = new ResizeObserver(() => { report({ width: element.clientWidth, height: element.clientHeight }) })
  observer.observe(element)
  return () => { observer.disconnect() }
}

/** The grid's scroll writer: its first write, to the top where a new grid is, would only force a layout. */
const scrollGrid = withoutFirstWrite<HTMLDivElement>(elementScroll)

interface TileProps { tile: Tile, index: number, on: boolean, sets: Map<IconCategory, IconSet> | undefined, onToggle: (key: string) => void, query: string }

/** A name with the letters the search found marked. */
function Highlighted ({ text, query }: { text: string, query: string }) {
  const ranges = query === '' ? [] : matchedLetters(text, query)
  if (ranges.length === 0) return <>{text}</>
  const parts: ReactNode[] = []
  let at = 0
  for (const [start, end] of ranges) {
    if (start > at) parts.push(text.slice(at, start))
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>)
    at = end
  }
  if (at < text.length) parts.push(text.slice(at))
  return <>{parts}</>
}

/** One tile; memoised, so scrolling draws only the rows coming into view and a tap only the tiles it changes. */
const GridTile = memo(function GridTile ({ tile, index, on, sets, onToggle, query }: TileProps) {
  return (
    <button type='button' className='tile' aria-pressed={on} data-index={index} data-key={tile.key} onClick={() => { onToggle(tile.key) }}>
      <span className='tile-check' aria-hidden='true'>{on ? '✓' : ''}</span>
      <IconImage src={iconUrl(sets, { kind: 'pokemon', id: tile.id, form: tile.form })} label={tileLabel(tile)} size={48} />
      <span className='tile-name' aria-hidden='true'><Highlighted text={tile.name} query={query} /></span>
      <span className='tile-sub' aria-hidden='true'>{tile.formName !== '' ? <Highlighted text={tile.formName} query={query} /> : `#${tile.id}`}</span>
    </button>
  )
})

/**
 * Pokemon as a grid of sprite tiles, many at once: one search box, combinable filters, select or
 * deselect every visible tile, "all forms" or one tile per form, and the choice kept above as
 * removable chips. Only the rows on screen are in the page, so every species and form fits.
 */
export function PokemonGridPicker ({ selected, onChange, allowEverything = false, label, multiple = true, describedBy, invalid = false, seenNow = 'spawns' }: PokemonGridPickerProps) {
  const { t } = useTranslation()
  const { catalogue, failed } = usePokemonCatalogue()
  const seen = useSeenNow(seenNow)
  const sets = useIconSets(['pokemon'])
  const labelId = useId()
  const hintId = useId()
  const facetsId = useId()
  // The words that never change with the grid, translated once: the picker draws again on every tap,
  // search keystroke and answer that comes in.
  const text = useMemo(() => ({
    everything: t('picker.everything'),
    everythingHint: t('picker.everythingHint'),
    search: t('picker.search'),
    searchPlaceholder: t('picker.searchPlaceholder'),
    searchHint: t('picker.searchHint'),
    filters: t('picker.filters'),
    allForms: t('picker.allForms')
  }), [t])
  const [query, setQuery] = useState('')
  const [facets, setFacets] = useState<Facets>(noFacets)
  // Raid bosses and power-spot pokémon start narrowed to the current ones, once they are known, unless the
  // member already chose or filtered something.
  const narrowedFirst = useRef(false)
  useEffect(() => {
    if (narrowedFirst.current || seen === null || !NARROWED_FIRST.has(seenNow)) return
    narrowedFirst.current = true
    if (selected.length === 0) setFacets((f) => activeFacetCount(f) === 0 ? { ...f, seenNow: true } : f)
  }, [seen, seenNow, selected.length])
  const [filtersOpen, setFiltersOpen] = useState(false)
  const [allForms, setAllForms] = useState(() => !selected.some((key) => !key.endsWith('-0')))
  const selectedSet = useMemo(() => new Set(selected), [selected])

  const total = catalogue === null ? 0 : (allForms ? catalogue.species : catalogue.forms).length
  // The choice narrows the grid only under "selected only": otherwise a tap need not filter it again.
  const selectionFilter = facets.selectedOnly ? selectedSet : null
  const visible = useMemo(() => {
    if (catalogue === null) return []
    const tiles = allForms ? catalogue.species : catalogue.forms
    const search = compileSearch(query, catalogue)
    // Nothing to narrow (the grid as it opens): the catalogue's own list, not a copy made tile by tile.
    if (search === null && activeFacetCount(facets) === 0) return tiles
    const facet = facetMatcher(facets, selectionFilter ?? new Set(), seen)
    const found = tiles.filter((tile) => facet(tile) && (search === null || search(tile)))
    if (!allForms || search === null) return found
    // "All forms" shows species, but a search for a form ("alola") still finds the forms themselves,
    // after the species, unless their species is already found.
    const species = new Set(found.map((tile) => tile.id))
    return [...found, ...catalogue.forms.filter((tile) => tile.formName !== '' && !species.has(tile.id) && facet(tile) && search(tile))]
  }, [catalogue, allForms, query, facets, selectionFilter, seen])

  // "One alarm for every pokémon does the same" is offered only when it is true: the grid shows every tile,
  // nothing searched or filtered away, and every one of them is chosen. A family or a filtered set never is.
  const choosesEverything = useMemo(() => {
    if (catalogue === null || query !== '' || selectedSet.has(EVERYTHING)) return false
    const tiles = allForms ? catalogue.species : catalogue.forms
    return visible.length === tiles.length && tiles.every((tile) => selectedSet.has(tile.key))
  }, [catalogue, allForms, query, visible, selectedSet])

  const nameOf = useCallback((key: string): string => {
    if (key === EVERYTHING) return text.everything
    const tile = catalogue?.byKey.get(key)
    if (tile !== undefined) return tileLabel(tile)
    const [id, form] = key.split('-')
    return form === '0' ? `#${id ?? ''}` : `#${id ?? ''} (${t('picker.formNumber', { form })})`
  }, [catalogue, text, t])

  const toggle = (key: string) => {
    if (!multiple) { onChange(selectedSet.has(key) ? [] : [key]); return }
    onChange(selectedSet.has(key) ? selected.filter((k) => k !== key) : [...selected, key])
  }
  const remove = (key: string) => { onChange(selected.filter((k) => k !== key)) }
  const clear = () => { onChange([]) }
  // The tiles and the chips get handlers for the picker's life (both are memoised, and scrolling or a
  // keystroke must not draw them again); the handlers reach the current selection through a ref.
  const latest = useRef({ toggle, remove, clear })
  useEffect(() => { latest.current = { toggle, remove, clear } })
  const onTileToggle = useCallback((key: string) => { latest.current.toggle(key) }, [])
  const onChipRemove = useCallback((key: string) => { latest.current.remove(key) }, [])
  const onClearAll = useCallback(() => { latest.current.clear() }, [])
  const selectVisible = () => {
    const add = visible.map((tile) => tile.key).filter((key) => !selectedSet.has(key))
    onChange([...selected, ...add])
  }
  const deselectVisible = () => {
    const drop = new Set(visible.map((tile) => tile.key))
    onChange(selected.filter((key) => !drop.has(key)))
  }
  const reset = () => { setFacets(noFacets()); setQuery('') }

  return (
    <div className='grid-picker' role='group' aria-labelledby={labelId} aria-describedby={describedBy} aria-invalid={invalid || undefined}>
      <p id={labelId} className='grid-picker-label'>{label}</p>
      <SelectedStrip keys={selected} nameOf={nameOf} sets={sets} onRemove={onChipRemove} onClear={multiple ? onClearAll : undefined} />
      {allowEverything && (
        <button type='button' className='tile tile-wide' aria-pressed={selectedSet.has(EVERYTHING)} onClick={() => { toggle(EVERYTHING) }}>
          <span className='tile-check' aria-hidden='true'>{selectedSet.has(EVERYTHING) ? '✓' : ''}</span>
          <span>{text.everything}</span>
          <span className='small muted'>{text.everythingHint}</span>
        </button>
      )}
      {allowEverything && multiple && choosesEverything && (
        <p className='notice small' data-testid='everything-offer'>
          {t('picker.everythingOffer')}{' '}
          <button type='button' className='link-button' onClick={() => { onChange([EVERYTHING]) }}>{t('picker.useEverything')}</button>
        </p>
      )}
      <div className='grid-picker-search'>
        <input
          className='input'
          type='search'
          autoComplete='off'
          value={query}
          aria-label={text.search}
          aria-describedby={hintId}
          placeholder={text.searchPlaceholder}
          onChange={(e) => { setQuery(e.target.value) }}
        />
        <button type='button' className='button' aria-expanded={filtersOpen} aria-controls={facetsId} onClick={() => { setFiltersOpen((o) => !o) }}>
          {activeFacetCount(facets) > 0 ? t('picker.filtersActive', { count: activeFacetCount(facets) }) : text.filters}
        </button>
      </div>
      {catalogue !== null && <ActiveFacets catalogue={catalogue} facets={facets} seenNowLabel={seen === null ? null : t(`picker.facets.seenNow.${seenNow}`)} onChange={setFacets} />}
      <p id={hintId} className='small muted'>{text.searchHint}</p>
      <div id={facetsId} hidden={!filtersOpen}>
        {/* Drawn only while open: dozens of labelled facets the first render of the grid need not pay for. */}
        {filtersOpen && catalogue !== null && <FacetPanel catalogue={catalogue} facets={facets} seenNowLabel={seen === null ? null : t(`picker.facets.seenNow.${seenNow}`)} onChange={setFacets} />}
      </div>
      <div className='grid-picker-bar'>
        <p role='status' className='small'>{t('picker.showing', { shown: visible.length, total })}</p>
        <label className='check'>
          <input type='checkbox' role='switch' checked={allForms} onChange={(e) => { setAllForms(e.target.checked) }} />
          <span>{text.allForms}</span>
        </label>
        {(activeFacetCount(facets) > 0 || query !== '') && <button type='button' className='button' onClick={reset}>{t('picker.reset')}</button>}
        {multiple && <button type='button' className='button' disabled={visible.length === 0} onClick={selectVisible}>{t('picker.selectVisible', { count: visible.length })}</button>}
        {multiple && <button type='button' className='button' disabled={visible.length === 0} onClick={deselectVisible}>{t('picker.deselectVisible', { count: visible.length })}</button>}
      </div>
      {failed && <p className='field-error'>{t('picker.unavailable')}</p>}
      {catalogue === null && !failed && <p className='muted' aria-busy='true'>{t('picker.loading')}</p>}
      {catalogue !== null && visible.length === 0 && <p className='muted'>{t('picker.noMatch')}</p>}
      <TileGrid tiles={visible} selected={selectedSet} sets={sets} onToggle={onTileToggle} query={query} />
    </div>
  )
}

interface TileGridProps { tiles: Tile[], selected: Set<string>, sets: Map<IconCategory, IconSet> | undefined, onToggle: (key: string) => void, query: string }

/**
 * The scrolled window over the tiles, only the rows near the screen in the page. A component of its own:
 * scrolling draws the rows coming into view, not the search, the chips and the buttons above them.
 */
const TileGrid = memo(function TileGrid ({ tiles, selected, sets, onToggle, query }: TileGridProps) {
  // Columns follow the grid's width (a phone, a tablet, a desktop dialog).
  const scrollRef = useRef<HTMLDivElement>(null)
  const [columns, setColumns] = useState(3)
  useEffect(() => {
    const element = scrollRef.current
    if (element === null) return
    // The observer reports the first size too, after layout: reading it here would force a layout.
    const observer = new ResizeObserver(() => { setColumns(columnsFor(element.clientWidth)) })
    observer.observe(element)
    return () => { observer.disconnect() }
  }, [])
  const rows = Math.ceil(tiles.length / columns)
  const [initialRect] = useState(firstRect)
  // The first rows are drawn in the first commit at the size worked out above; later sizes come from a
  // resize observer, after layout, instead of a measure that forces one while the grid is being drawn.
  // One row beyond each edge: a scroll draws the rows it brings in before that frame is painted, so more
  // rows kept in the page would only add to the layout and paint of every frame. That row comes once the
  // page is idle after the grid appears: the first frame draws only the rows on screen, and nothing else
  // waits for the extra row. (An effect of a render that a tap caused runs before the paint.)
  const [overscan, setOverscan] = useState(0)
  useEffect(() => whenIdle(() => { setOverscan(1) }, 500), [])
  const virtualizer = useVirtualizer({ count: rows, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan, initialRect, observeElementRect: observeSize, scrollToFn: scrollGrid })

  // Arrow keys move between tiles (rows off screen are scrolled in first); Tab leaves the grid.
  const onGridKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns, Home: -Infinity, End: Infinity }
    const step = moves[event.key]
    const current = Number((event.target as HTMLElement).dataset.index)
    if (step === undefined || Number.isNaN(current)) return
    event.preventDefault()
    const next = Math.max(0, Math.min(tiles.length - 1, step === Infinity ? tiles.length - 1 : step === -Infinity ? 0 : current + step))
    virtualizer.scrollToIndex(Math.floor(next / columns))
    const focus = (tries: number) => {
      const target = scrollRef.current?.querySelector<HTMLButtonElement>(`[data-index="${next}"]`)
      if (target != null) target.focus()
      else if (tries > 0) requestAnimationFrame(() => { focus(tries - 1) })
    }
    focus(5)
  }

  return (
    <div ref={scrollRef} className='grid-picker-scroll' style={{ height: GRID_HEIGHT }} data-testid='pokemon-grid' onKeyDown={onGridKey}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((row) => (
          <div key={row.key} className='grid-picker-row' style={{ transform: `translateY(${row.start}px)`, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
            {tiles.slice(row.index * columns, row.index * columns + columns).map((tile, i) => (
              <GridTile key={tile.key} tile={tile} index={row.index * columns + i} on={selected.has(tile.key)} sets={sets} onToggle={onToggle} query={query} />
            ))}
          </div>
        ))}
      </div>
    </div>
  )
})
