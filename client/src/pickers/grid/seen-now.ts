import { useEffect, useState } from 'react'
import { estimates, masterdata } from '../../api'

/**
 * What the site's scanner sees now, as the species a picker can narrow to: wild spawns (Golbat's
 * availability), the bosses of the raids running now, the pokémon at power spots, or today's quest rewards
 * of one kind (pokémon encounters, mega energy, candy).
 */
export type SeenNowSource = 'spawns' | 'raidBosses' | 'maxBattles' | 'questPokemon' | 'questMegaEnergy' | 'questCandy'

/** The quest reward type (the game's id) each quest source reads. */
const REWARD_TYPE = { questPokemon: 7, questMegaEnergy: 12, questCandy: 4 } as const

const rewardIds = (answer: Awaited<ReturnType<typeof estimates.questRewardsNow>>, rewardType: number): Set<number> | null =>
  answer.enabled ? new Set(answer.rewards.filter((r) => r.rewardType === rewardType).map((r) => r.pokemonId)) : null

/** Each source's species; null when the site has no such source (no scanner, or nothing configured). */
const LOADERS: Record<SeenNowSource, () => Promise<Set<number> | null>> = {
  spawns: async () => {
    const answer = await masterdata.pokemonAvailability()
    return answer.enabled ? new Set(answer.available) : null
  },
  raidBosses: async () => {
    const answer = await estimates.raidBossesNow()
    return answer.enabled ? new Set(answer.bosses.filter((b) => b.pokemonId > 0).map((b) => b.pokemonId)) : null
  },
  // The scanner's power spots; an empty list means no scanner (or none of its stations has a battle).
  maxBattles: async () => {
    const ids = await masterdata.maxBattlePokemon()
    return ids.length > 0 ? new Set(ids) : null
  },
  questPokemon: async () => rewardIds(await estimates.questRewardsNow(), REWARD_TYPE.questPokemon),
  questMegaEnergy: async () => rewardIds(await estimates.questRewardsNow(), REWARD_TYPE.questMegaEnergy),
  questCandy: async () => rewardIds(await estimates.questRewardsNow(), REWARD_TYPE.questCandy)
}

/** One answer per source per page load; a failed read is asked again by the next picker. */
const loaded = new Map<SeenNowSource, Promise<Set<number> | null>>()

export function useSeenNow (source: SeenNowSource): Set<number> | null {
  const [ids, setIds] = useState<Set<number> | null>(null)
  useEffect(() => {
    let live = true
    let pending = loaded.get(source)
    if (pending === undefined) {
      pending = LOADERS[source]().catch(() => { loaded.delete(source); return null })
      loaded.set(source, pending)
    }
    void pending.then((found) => { if (live) setIds(found) })
    return () => { live = false }
  }, [source])
  return ids
}
