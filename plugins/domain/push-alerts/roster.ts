import type { FastifyInstance } from 'fastify'
import type { MemberState } from '../../../lib/alarm-explain.js'
import { alarmKeys, CandidateIndex } from '../../../lib/push-index.js'
import type { DeliveryMode } from '../../../schemas/push.js'
import type { PushDeviceTarget } from '../push-subscriptions.js'
import { EngineError } from '../../data/engine.js'

/** A member with a push device, as push alerts keep them in memory. */
export interface Member {
  userId: string
  devices: PushDeviceTarget[]
  modes: Map<number, DeliveryMode>
  state: MemberState | null
  stateAt: number
  /** After a failed read (a member the engine does not know, an engine fault): no new try before this time (clock ms). */
  retryAt: number
  /** Raised when the member changed something: a read started before it is not kept. */
  generation: number
  loading: Promise<MemberState | null> | null
  /** When this member's recent pushes were sent (clock ms), within the rate window. */
  sentAt: number[]
  noticeSent: boolean
}

/** How often members whose alarms were read longer than PUSH_MEMBER_REFRESH_SECONDS ago are looked for. */
const REFRESH_SWEEP_MS = 1000
/**
 * How long after a failed read a member is looked for again: a device left behind by a member the engine
 * no longer knows would otherwise cost an engine call and a warning on every sweep and every hook call.
 */
const FAILED_READ_RETRY_MS = 60_000

/**
 * The members with a push device and their alarms, in memory and indexed by what an event can match
 * (lib/push-index.ts): read when the instance starts (from the engine's database, all at once), again in
 * the background after PUSH_MEMBER_REFRESH_SECONDS, and at once on every instance when a member changes
 * anything or their devices change (the next events wait for that read).
 */
export function createPushRoster (fastify: FastifyInstance) {
  const { config, clock, log, pushSubscriptions, alarmExplanations, cacheEviction } = fastify
  let roster: Map<string, Member> | null = null
  let rosterStale = true
  let rosterLoading: Promise<Map<string, Member>> | null = null
  const index = new CandidateIndex<Member>()
  /** Reads of members whose alarms the next event must see: new members, and members who changed something. */
  const pending = new Set<Promise<unknown>>()
  /** Reads nothing waits for: the sweep's, and those the validation hook starts for its next call. */
  const background = new Set<Promise<unknown>>()
  const keep = (reads: Set<Promise<unknown>>, read: Promise<unknown>) => {
    reads.add(read)
    read.finally(() => reads.delete(read)).catch(() => {})
  }
  const waitFor = (read: Promise<unknown>) => keep(pending, read)
  const inBackground = (read: Promise<unknown>) => keep(background, read.catch(() => {}))

  async function loadRoster (): Promise<Map<string, Member>> {
    rosterStale = false
    const [targets, modes] = await Promise.all([pushSubscriptions.allTargets(), pushSubscriptions.allDeliveryModes()])
    const devices = new Map<string, PushDeviceTarget[]>()
    for (const target of targets) devices.set(target.userId, [...(devices.get(target.userId) ?? []), target])
    const choices = new Map<string, Map<number, DeliveryMode>>()
    for (const { userId, profileNo, mode } of modes) choices.set(userId, (choices.get(userId) ?? new Map()).set(profileNo, mode))
    // A member already in memory keeps its object: its alarms, its rate window, a read in flight.
    const next = new Map<string, Member>()
    for (const [userId, list] of devices) {
      const member = roster?.get(userId) ?? { userId, devices: [], modes: new Map(), state: null, stateAt: 0, retryAt: 0, generation: 0, loading: null, sentAt: [], noticeSent: false }
      member.devices = list
      member.modes = choices.get(userId) ?? new Map()
      next.set(userId, member)
    }
    for (const [userId, member] of roster ?? []) if (!next.has(userId)) index.remove(member)
    roster = next
    waitFor(readMany([...next.values()].filter((member) => member.state === null)))
    return next
  }

  /** The members with a push device, read again when something changed. */
  async function current (): Promise<Map<string, Member>> {
    if (roster !== null && !rosterStale) return roster
    rosterLoading ??= loadRoster().finally(() => { rosterLoading = null })
    return rosterLoading
  }

  const forgetState = (userId: string): void => {
    const member = roster?.get(userId)
    if (member !== undefined) {
      member.stateAt = 0
      member.retryAt = 0
      member.generation++
      member.loading = null
      waitFor(stateOf(member))
    }
  }
  // Anything a member writes through the API (alarms, profiles, location, areas, pausing) is seen on every instance.
  alarmExplanations.onMemberChange(forgetState)
  // So is a change of their devices, which also changes who is on the roster.
  cacheEviction.on('push-member', (userId) => {
    rosterStale = true
    forgetState(userId)
  })
  pushSubscriptions.onChange(async (userId) => {
    rosterStale = true
    if (userId !== null) cacheEviction.evict('push-member', userId).catch(() => {})
    await current().catch(() => {})
  })

  const isFresh = (member: Member) => member.state !== null && clock.now() - member.stateAt < config.PUSH_MEMBER_REFRESH_SECONDS * 1000
  /** Whether the member's alarms are to be read again now: not fresh, and no failed read in the last minute. */
  const due = (member: Member) => !isFresh(member) && clock.now() >= member.retryAt

  /**
   * Reads many members' alarms at once from the engine's database (one pass over each table: one engine call
   * per member scans every table and took 8 minutes for 10,000 members, bench:push). A member whose state
   * changed meanwhile (a write forgot it) keeps the newer read; one the read missed is read on its own.
   */
  async function readMany (members: Member[]): Promise<void> {
    const generations = new Map(members.map((member) => [member, member.generation]))
    let states: Map<string, MemberState>
    try {
      states = await alarmExplanations.memberStates(members.map((member) => member.userId))
    } catch (error) {
      log.warn({ members: members.length, error: (error as Error).message }, 'push alerts: members could not be read at once; they are read one by one')
      states = new Map()
    }
    const now = clock.now()
    for (const member of members) {
      const state = states.get(member.userId)
      if (state === undefined || generations.get(member) !== member.generation || member.loading !== null) continue
      member.state = state
      member.stateAt = now
      if (roster?.get(member.userId) === member) index.file(member, alarmKeys(state))
    }
    for (const member of members) if (due(member)) await stateOf(member)
  }

  /** Reads again, in the background, the alarms of members read longer ago than PUSH_MEMBER_REFRESH_SECONDS. */
  let refreshing = false
  let sweptAt = 0
  function refreshStale (): void {
    if (refreshing || roster === null || clock.now() - sweptAt < REFRESH_SWEEP_MS) return
    sweptAt = clock.now()
    const stale = [...roster.values()].filter(due)
    if (stale.length === 0) return
    refreshing = true
    inBackground(readMany(stale).finally(() => { refreshing = false }))
  }

  /** One member's alarms through the engine (a read in flight is shared); the last known ones when it fails. */
  async function stateOf (member: Member): Promise<MemberState | null> {
    if (isFresh(member)) return member.state
    const generation = member.generation
    member.loading ??= alarmExplanations.memberState(member.userId).then((state) => {
      if (generation !== member.generation) return stateOf(member)
      member.state = state
      member.stateAt = clock.now()
      member.retryAt = 0
      if (roster?.get(member.userId) === member) index.file(member, alarmKeys(state))
      return state
    }, (error: unknown) => {
      const userId = member.userId
      member.retryAt = clock.now() + FAILED_READ_RETRY_MS
      if (error instanceof EngineError && error.kind === 'not_found') {
        // The engine no longer knows the member: their alarms are gone with them, so nothing is pushed.
        log.warn({ userId }, 'push alerts: the alarm engine does not know this member; nothing is pushed to their devices')
        member.state = null
        index.remove(member)
        return null
      }
      log.warn({ userId, error: (error as Error).message }, 'push alerts: the member\'s alarms could not be read; their last known ones are used')
      return member.state
    })
    const loading = member.loading
    loading.finally(() => { if (member.loading === loading) member.loading = null }).catch(() => {})
    return loading
  }

  return {
    current,
    stateOf,
    refreshStale,
    /** The members an event with these keys can alert (lib/push-index.ts). */
    candidates: (keys: Parameters<CandidateIndex<Member>['candidates']>[0]) => index.candidates(keys),
    /**
     * A member from memory, never waiting (the validation hook's path): a stale roster is read again and a
     * stale member's alarms too, both in the background, for the next call.
     */
    known (userId: string): Member | undefined {
      if (roster === null || rosterStale) current().catch(() => {})
      const member = roster?.get(userId)
      if (member !== undefined && due(member)) inBackground(stateOf(member))
      return member
    },
    /** Settles when every read the next events must see is in. */
    async settled (): Promise<void> {
      while (pending.size > 0) await Promise.all(pending)
    },
    /** Whether any read is in flight: those the next events wait for, and those in the background. */
    reading: (): boolean => pending.size > 0 || background.size > 0
  }
}
