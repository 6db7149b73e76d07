import { EstimateLine } from './EstimateLine'
import { OverlapNotice, type AlarmLink } from './OverlapNotice'
import { ESTIMATED_TYPES } from './api'
import { useAlarmEstimate } from './useAlarmEstimate'

/** What the alarm in the editor would send, live, and which of the member's alarms already cover it. */
export function FormEstimate ({ type, body, uid, alarmLink }: { type: string, body: Record<string, unknown>, uid?: number | undefined, alarmLink: AlarmLink }) {
  const state = useAlarmEstimate(type, body, uid)
  if (!ESTIMATED_TYPES.has(type) && state.status !== 'ready') return null
  return (
    <div className='form-estimate'>
      <EstimateLine state={state} />
      {state.status === 'ready' && <OverlapNotice estimate={state.estimate} alarmLink={alarmLink} />}
    </div>
  )
}
