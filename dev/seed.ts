import type { SqlRunner } from '../test/fakes/engine-db.js'
import { createEngineSchema, insertAlarm, insertHuman, insertProfile } from '../test/fakes/engine-db.js'
import type { FakeFence } from '../test/fakes/alarm-engine.js'
import type { DemoAccount } from './oidc-provider.js'

/** The demo community: one admin and two members, registered with the alarm engine stand-in. */
export const DEMO_ACCOUNTS: DemoAccount[] = [
  { username: 'admin', engineId: '100000000000000001', displayName: 'Professor Willow', role: 'admin' },
  { username: 'misty', engineId: '100000000000000002', displayName: 'Misty', role: 'member' },
  { username: 'brock', engineId: '100000000000000003', displayName: 'Brock', role: 'member' }
]

/** Selectable areas around a made-up town centre. */
const CENTRE: [number, number] = [51.5074, -0.1278]
const square = (dLat: number, dLon: number, size = 0.02): Array<[number, number]> => {
  const [lat, lon] = [CENTRE[0] + dLat, CENTRE[1] + dLon]
  return [[lat, lon], [lat + size, lon], [lat + size, lon + size], [lat, lon + size]]
}
export const DEMO_FENCES: FakeFence[] = [
  { name: 'Old Town', group: 'Centre', path: square(0, 0), userSelectable: true, displayInMatches: true },
  { name: 'Riverside', group: 'Centre', path: square(-0.02, 0), userSelectable: true, displayInMatches: true },
  { name: 'North Park', group: 'North', path: square(0.02, 0), userSelectable: true, displayInMatches: true },
  { name: 'Harbour', group: 'South', path: square(-0.04, 0.02), userSelectable: true, displayInMatches: true }
]

/**
 * A few alarms of every type, so each page of the demo has something to show; the pokemon are ones the
 * engine stand-in's game data names, so every card shows a name and a picture.
 */
const ALARMS = {
  pokemon: [{ pokemon_id: 4, min_iv: 90, distance: 2000 }, { pokemon_id: 25, form: 0 }, { pokemon_id: 0, min_iv: 100 }],
  raid: [{ pokemon_id: 9000, level: 5 }, { pokemon_id: 150, level: 9000, distance: 5000 }],
  egg: [{ level: 5 }, { level: 3, distance: 1500 }],
  quest: [{ reward_type: 3, reward: 1000 }, { reward_type: 7, reward: 129 }],
  invasion: [{ grunt_type: 'dragon' }, { grunt_type: 'giovanni', distance: 3000 }],
  lure: [{ lure_id: 501 }, { lure_id: 504 }],
  nest: [{ pokemon_id: 1, min_spawn_avg: 5 }, { pokemon_id: 7 }],
  gym: [{ team: 1, slot_changes: 1 }, { team: 4, battle_changes: 1 }],
  fort: [{ fort_type: 'pokestop', change_types: '["name","location"]' }, { fort_type: 'gym', include_empty: 1 }],
  maxbattle: [{ pokemon_id: 9000, level: 5 }, { pokemon_id: 3, gmax: 1 }]
} as const

/** Creates the engine's tables in the runner's (empty) database and fills them with the demo community. */
export async function seedEngine (runner: SqlRunner): Promise<void> {
  await createEngineSchema(runner)
  const areas = ['old town', 'riverside']
  for (const account of DEMO_ACCOUNTS) {
    await insertHuman(runner, {
      id: account.engineId,
      name: account.displayName,
      area: areas,
      latitude: CENTRE[0] + 0.01,
      longitude: CENTRE[1] + 0.01,
      language: 'en',
      profileName: 'Home'
    })
  }
  const [admin, misty] = DEMO_ACCOUNTS
  if (admin === undefined || misty === undefined) return
  // Misty has a second profile, so the profile switcher has something to switch.
  await insertProfile(runner, { id: misty.engineId, profileNo: 2, name: 'Work', area: ['north park'], latitude: CENTRE[0] + 0.03, longitude: CENTRE[1] + 0.01 })
  for (const owner of [admin, misty]) {
    for (const [type, rows] of Object.entries(ALARMS) as Array<[keyof typeof ALARMS, ReadonlyArray<Record<string, unknown>>]>) {
      for (const row of rows) await insertAlarm(runner, type, { id: owner.engineId, ...row })
    }
  }
  await insertAlarm(runner, 'pokemon', { id: misty.engineId, profile_no: 2, pokemon_id: 131, distance: 1000 })
}
