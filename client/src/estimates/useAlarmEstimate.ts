import { useEffect, useState } from 'react'
import { estimates } from '../api'
import type { Estimate, ProfileEstimate } from './api'

/** How long typing may pause before the estimate is asked for. */
const DEBOUNCE_MS = 400

export type EstimateState = { status: 'idle' | 'loading' } | { status: 'ready', estimate: Estimate } | { status: 'failed' }

/**
 * The live estimate of an alarm being edited: asked for once the filters stop changing for a moment, the
 * previous question cancelled when a new one starts, so the last answer always wins. A failed or refused
 * question (a half-filled form) shows nothing; the form never waits for it.
 */
export function useAlarmEstimate (type: string, body: Record<string, unknown> | null, uid?: number): EstimateState {
  const key = body === null ? null : JSON.stringify(body)
  const [state, setState] = useState<EstimateState>({ status: 'idle' })
  useEffect(() => {
    if (key === null) { setState({ status: 'idle' }); return }
    const controller = new AbortController()
    setState((s) => (s.status === 'ready' ? s : { status: 'loading' }))
    const timer = setTimeout(() => {
      estimates.estimate(type, JSON.parse(key) as Record<string, unknown>, uid, controller.signal)
        .then((estimate) => { if (!controller.signal.aborted) setState({ status: 'ready', estimate }) })
        .catch(() => { if (!controller.signal.aborted) setState({ status: 'failed' }) })
    }, DEBOUNCE_MS)
    return () => { clearTimeout(timer); controller.abort() }
  }, [type, key, uid])
  return state
}

/** One question per type for every card and header on a page: answers are shared for half a minute. */
const SHARED_MS = 30_000
const shared = new Map<string, { at: number, answer: Promise<ProfileEstimate> }>()

export function loadProfileEstimate (type: string, fresh = false): Promise<ProfileEstimate> {
  const kept = shared.get(type)
  if (!fresh && kept !== undefined && Date.now() - kept.at < SHARED_MS) return kept.answer
  const answer = estimates.profileEstimate(type)
  shared.set(type, { at: Date.now(), answer })
  answer.catch(() => { if (shared.get(type)?.answer === answer) shared.delete(type) })
  return answer
}

/** The profile's estimates of one type; asked again when an alarm it does not know shows up. */
export function useProfileEstimate (type: string, uid?: number): ProfileEstimate | null {
  const [answer, setAnswer] = useState<ProfileEstimate | null>(null)
  useEffect(() => {
    let live = true
    loadProfileEstimate(type)
      .then(async (a) => (uid !== undefined && a.alarms[String(uid)] === undefined ? await loadProfileEstimate(type, true) : a))
      .then((a) => { if (live) setAnswer(a) }, () => { if (live) setAnswer(null) })
    return () => { live = false }
  }, [type, uid])
  return answer
}
