import type { TFunction } from 'i18next'
import { gruntName, INVASION_LEADERS, invasionIcon, loadGrunts, loadGruntTypes, loadMaxLevels, loadRaidLevels, maxLevelName, POKESTOP_EVENTS, raidLevelName } from '../game-data'
import type { IconRequest } from '../../icons'

export type ChoiceKind = 'raidLevel' | 'maxLevel' | 'egg' | 'grunt' | 'lure' | 'team' | 'item' | 'reward'

/**
 * One tile of a choice grid: the value the engine stores, its name, its icon (null: a named placeholder).
 * `every` marks the tile that stands for all the others (any level, any lure): picked with them, it
 * would only repeat them.
 */
export interface GridChoice { value: string, label: string, icon: IconRequest | null, short?: string, every?: true }
export interface ChoiceGroup { id: string, title: string | null, choices: GridChoice[] }

/** Quest item rewards the game hands out, by item id (names in "pickers.items"); 0 = any item. */
export const QUEST_ITEMS = [0, 1, 2, 3, 101, 102, 103, 104, 201, 202, 701, 703, 705, 706, 708, 709, 1301, 1201, 1202, 1101, 1102, 1103, 1104, 1105, 1106, 1107]
const LURES = [0, 501, 502, 503, 504, 505, 506]
const TEAMS = [4, 0, 1, 2, 3]
/**
 * Quest reward kinds the engine stores (`reward_type`): pokemon 7, item 2, mega energy 12, candy 4,
 * stardust 3. XL candy has no reward type in the engine, so it is not offered.
 */
const REWARD_KINDS: Array<{ value: number, icon: IconRequest }> = [
  { value: 7, icon: { kind: 'misc', name: 'pokemon' } },
  { value: 2, icon: { kind: 'reward', reward: 'item', id: 1 } },
  { value: 12, icon: { kind: 'reward', reward: 'mega_resource', id: 0 } },
  { value: 4, icon: { kind: 'reward', reward: 'candy', id: 0 } },
  { value: 3, icon: { kind: 'reward', reward: 'stardust', id: 0 } }
]

const one = (choices: GridChoice[]): ChoiceGroup[] => [{ id: 'all', title: null, choices }]

/** The choices of a kind in the page's language; levels and grunts come from the service. */
export async function loadChoices (kind: ChoiceKind, t: TFunction): Promise<ChoiceGroup[]> {
  switch (kind) {
    case 'raidLevel':
    case 'egg': {
      const levels = await loadRaidLevels()
      return one([
        { value: '90', label: t('pickers.everyLevel'), icon: null, short: '★', every: true },
        ...levels.map((l) => ({ value: String(l.value), label: raidLevelName(t, l.value, l.name), icon: { kind: 'egg', level: l.value, hatched: kind === 'raidLevel' } satisfies IconRequest }))
      ])
    }
    case 'maxLevel': {
      // Max battles have no icon of their own in UICONS: the level's stars stand in.
      const levels = await loadMaxLevels()
      return one([
        { value: '9000', label: maxLevelName(t, 9000, ''), icon: null, short: '★', every: true },
        ...levels.map((l) => ({ value: String(l.value), label: maxLevelName(t, l.value, l.name), icon: null, short: l.value >= 7 ? `G${l.value - 6}` : `${l.value}★` }))
      ])
    }
    case 'grunt': {
      const [types, grunts] = await Promise.all([loadGruntTypes(), loadGrunts()])
      const name = (value: string) => t(`picker.invasions.${value}`, { defaultValue: gruntName(value) })
      return [
        { id: 'grunts', title: t('picker.groups.grunts'), choices: types.map((g) => ({ value: g, label: name(g), icon: invasionIcon(g, grunts) })) },
        { id: 'leaders', title: t('picker.groups.leaders'), choices: INVASION_LEADERS.map((l) => ({ value: l.value, label: name(l.value), icon: l.icon })) },
        { id: 'events', title: t('picker.groups.events'), choices: POKESTOP_EVENTS.map((e) => ({ value: e.value, label: name(e.value), icon: e.icon })) }
      ]
    }
    case 'lure':
      return one(LURES.map((id) => ({ value: String(id), label: t(`pickers.values.lure_id.${id}`), icon: id === 0 ? null : { kind: 'pokestop', lure: id }, short: '★', ...(id === 0 && { every: true as const }) })))
    case 'team':
      return one(TEAMS.map((id) => ({ value: String(id), label: t(`pickers.values.team.${id}`), icon: id === 4 ? null : { kind: 'team', team: id }, short: '★', ...(id === 4 && { every: true as const }) })))
    case 'item':
      return one(QUEST_ITEMS.map((id) => ({ value: String(id), label: t(`pickers.items.${id}`, { defaultValue: `#${id}` }), icon: id === 0 ? null : { kind: 'reward', reward: 'item', id }, short: '★', ...(id === 0 && { every: true as const }) })))
    case 'reward':
      return one(REWARD_KINDS.map((r) => ({ value: String(r.value), label: t(`pickers.values.reward_type.${r.value}`), icon: r.icon })))
  }
}
