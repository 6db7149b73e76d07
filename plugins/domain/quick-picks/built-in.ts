import type { QuickPickType } from '../../../schemas/quick-picks.js'

interface BuiltInPick {
  id: string
  name: string
  description: string
  icon: string
  category: string
  alarmType: QuickPickType
  /** In the alarm API's field names; a list fans out into one alarm per value. */
  filters: Record<string, unknown>
}

const pick = (id: string, name: string, description: string, icon: string, category: string, alarmType: QuickPickType, filters: Record<string, unknown>): BuiltInPick =>
  ({ id, name, description, icon, category, alarmType, filters })

const every = { pokemon_id: 0 }
const pvp = (league: number, worst: number, minCp: number) => ({ ...every, pvp_ranking_league: league, pvp_ranking_best: 1, pvp_ranking_worst: worst, pvp_ranking_min_cp: minCp })
const raidLevel = (level: number) => ({ pokemon_id: 9000, level })

/** Every grunt type the engine tracks by typing, plus the untyped ones. */
const GRUNT_TYPES = [
  'bug', 'dark', 'dragon', 'electric', 'fairy', 'fighting', 'fire', 'flying', 'ghost', 'grass', 'ground', 'ice',
  'metal', 'normal', 'poison', 'psychic', 'rock', 'water', 'mixed'
]

/** The built-in global picks, seeded on an admin's request (POST /api/quick-picks/seed). */
export const BUILT_IN_PICKS: BuiltInPick[] = [
  pick('hundo', '100% IV', 'Every pokemon with perfect IVs', 'star', 'Common', 'monster', { ...every, min_iv: 100, max_iv: 100 }),
  pick('nundo', '0% IV', 'Every pokemon with zero IVs', 'exposure_zero', 'Common', 'monster', { ...every, min_iv: 0, max_iv: 0 }),
  pick('iv-90', '90%+ IV', 'Every pokemon of 90% IV or better', 'trending_up', 'Common', 'monster', { ...every, min_iv: 90 }),
  pick('level-30', 'Level 30+', 'Every pokemon of level 30 or higher', 'military_tech', 'Common', 'monster', { ...every, min_level: 30 }),
  pick('cp-3000', '3000+ CP', 'Every pokemon of 3000 CP or more', 'bolt', 'Common', 'monster', { ...every, min_cp: 3000 }),
  pick('pvp-great-1', 'Great League rank 1', 'Rank 1 for the Great League', 'emoji_events', 'PvP', 'monster', pvp(1500, 1, 1400)),
  pick('pvp-great-10', 'Great League top 10', 'Top 10 ranks for the Great League', 'emoji_events', 'PvP', 'monster', pvp(1500, 10, 1400)),
  pick('pvp-ultra-1', 'Ultra League rank 1', 'Rank 1 for the Ultra League', 'emoji_events', 'PvP', 'monster', pvp(2500, 1, 2350)),
  pick('pvp-ultra-10', 'Ultra League top 10', 'Top 10 ranks for the Ultra League', 'emoji_events', 'PvP', 'monster', pvp(2500, 10, 2350)),
  pick('pvp-little-1', 'Little Cup rank 1', 'Rank 1 for the Little Cup', 'emoji_events', 'PvP', 'monster', pvp(500, 1, 450)),
  pick('xxl', 'XXL', 'Every XXL pokemon', 'open_in_full', 'Size', 'monster', { ...every, size: 5, max_size: 5 }),
  pick('xxs', 'XXS', 'Every XXS pokemon', 'close_fullscreen', 'Size', 'monster', { ...every, size: 1, max_size: 1 }),
  pick('raid-mega', 'Mega raids', 'Every mega raid', 'local_fire_department', 'Raids', 'raid', raidLevel(6)),
  pick('raid-5', '5-star raids', 'Every 5-star raid', 'local_fire_department', 'Raids', 'raid', raidLevel(5)),
  pick('raid-4', '4-star raids', 'Every 4-star raid', 'local_fire_department', 'Raids', 'raid', raidLevel(4)),
  pick('raid-3', '3-star raids', 'Every 3-star raid', 'local_fire_department', 'Raids', 'raid', raidLevel(3)),
  pick('raid-1', '1-star raids', 'Every 1-star raid', 'local_fire_department', 'Raids', 'raid', raidLevel(1)),
  pick('raid-ex', 'EX-eligible raids', 'Raids of every level at EX-eligible gyms', 'confirmation_number', 'Raids', 'raid', { ...raidLevel(90), exclusive: 1 }),
  pick('egg-5', '5-star eggs', 'Every 5-star egg', 'egg', 'Raids', 'egg', { level: 5 }),
  pick('egg-mega', 'Mega eggs', 'Every mega egg', 'egg', 'Raids', 'egg', { level: 6 }),
  pick('quest-stardust', 'Stardust quests', 'Every quest rewarding stardust', 'auto_awesome', 'Quests', 'quest', { reward_type: 3, reward: 0 }),
  pick('quest-encounter', 'Encounter quests', 'Every quest rewarding a pokemon encounter', 'catching_pokemon', 'Quests', 'quest', { reward_type: 7, reward: 0 }),
  pick('quest-rare-candy', 'Rare Candy quests', 'Every quest rewarding Rare Candy', 'cake', 'Quests', 'quest', { reward_type: 2, reward: 1301 }),
  pick('invasion-all', 'All invasions', 'Every grunt type', 'groups', 'Invasions', 'invasion', { grunt_type: GRUNT_TYPES }),
  pick('invasion-leaders', 'Rocket leaders', 'Cliff, Arlo and Sierra', 'shield', 'Invasions', 'invasion', { grunt_type: ['cliff', 'arlo', 'sierra'] }),
  pick('invasion-giovanni', 'Giovanni', 'The Rocket boss', 'shield', 'Invasions', 'invasion', { grunt_type: 'giovanni' }),
  pick('lure-glacial', 'Glacial lures', 'Every Glacial Lure Module', 'ac_unit', 'Common', 'lure', { lure_id: 502 }),
  pick('lure-mossy', 'Mossy lures', 'Every Mossy Lure Module', 'grass', 'Common', 'lure', { lure_id: 503 }),
  pick('lure-magnetic', 'Magnetic lures', 'Every Magnetic Lure Module', 'explore', 'Common', 'lure', { lure_id: 504 }),
  pick('lure-rainy', 'Rainy lures', 'Every Rainy Lure Module', 'water_drop', 'Common', 'lure', { lure_id: 505 }),
  pick('lure-golden', 'Golden lures', 'Every Golden Lure Module', 'paid', 'Common', 'lure', { lure_id: 506 })
]
