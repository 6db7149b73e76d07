import { invasionIcon } from '../pickers/game-data'
import { useGrunts } from '../pickers/useGameData'
import { GameIcon } from '../icons/GameIcon'
import type { IconRequest, RewardKind } from '../icons/uicons'

/** Quest reward types (the engine's `reward_type`) and their UICONS reward folders. */
const REWARD_FOLDERS: Record<number, RewardKind> = { 2: 'item', 3: 'stardust', 4: 'candy', 9: 'xl_candy', 12: 'mega_resource' }

const num = (value: unknown): number => Number(value ?? 0)

/** What stands for an alarm of `type`: its pokemon, egg, grunt, lure, team or reward; null for none. */
function alarmIconRequest (type: string, alarm: Record<string, unknown>, grunts: Parameters<typeof invasionIcon>[1]): IconRequest | null {
  const pokemon = (): IconRequest | null => num(alarm.pokemon_id) > 0 && num(alarm.pokemon_id) < 9000 ? { kind: 'pokemon', id: num(alarm.pokemon_id), form: num(alarm.form) } : null
  switch (type) {
    case 'pokemon': case 'nest': return pokemon()
    case 'raid': return num(alarm.pokemon_id) === 9000 ? { kind: 'egg', level: num(alarm.level), hatched: true } : pokemon()
    case 'egg': return { kind: 'egg', level: num(alarm.level) }
    case 'maxbattle': return pokemon()
    case 'invasion': return invasionIcon(String(alarm.grunt_type ?? '').toLowerCase(), grunts, num(alarm.gender))
    case 'lure': return num(alarm.lure_id) > 0 ? { kind: 'pokestop', lure: num(alarm.lure_id) } : null
    case 'gym': return num(alarm.team) < 4 ? { kind: 'team', team: num(alarm.team) } : null
    case 'quest': {
      const rewardType = num(alarm.reward_type)
      if (rewardType === 7) return num(alarm.reward) > 0 ? { kind: 'pokemon', id: num(alarm.reward), form: num(alarm.form) } : null
      const folder = REWARD_FOLDERS[rewardType]
      return folder === undefined ? null : { kind: 'reward', reward: folder, id: num(alarm.reward), ...(folder === 'stardust' ? { amount: num(alarm.reward) } : {}) }
    }
    default: return null
  }
}

interface Props { type: string, alarm: Record<string, unknown>, label: string }

/** The icon of one alarm (a card's picture); `label` is its text alternative. Nothing for an alarm with no picture. */
export function AlarmIcon ({ type, alarm, label }: Props) {
  // Only an invasion's picture depends on the grunts: the cards of other types do not wait for them.
  if (type === 'invasion') return <InvasionIcon type={type} alarm={alarm} label={label} />
  const request = alarmIconRequest(type, alarm, null)
  return request === null ? null : <GameIcon icon={request} label={label} />
}

function InvasionIcon ({ type, alarm, label }: Props) {
  const { grunts } = useGrunts()
  const request = alarmIconRequest(type, alarm, grunts)
  return request === null ? null : <GameIcon icon={request} label={label} />
}
