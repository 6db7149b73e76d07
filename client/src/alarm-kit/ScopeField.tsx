import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { areas as areasApi } from '../api'
import type { AlarmTypeDescriptor } from '../alarm-types'
import { listItems, type FieldErrors, type FormValues } from './form-model'

type AvailableArea = Awaited<ReturnType<typeof areasApi.available>>[number]

type Mode = 'areas' | 'distance' | 'chosen'

const modeOf = (values: FormValues): Mode =>
  Number(values.distance) > 0 ? 'distance' : listItems(values.override_areas ?? '').length > 0 ? 'chosen' : 'areas'

/**
 * Where one alarm is delivered: the profile's areas, within a radius of the profile's pin, or (PoracleNG)
 * a set of areas chosen for this alarm alone. The three exclude one another, as the engine requires.
 */
export function ScopeField ({ type, values, errors, set }: { type: AlarmTypeDescriptor, values: FormValues, errors: FieldErrors, set: (changes: FormValues) => void }) {
  const { t } = useTranslation()
  const [mode, setMode] = useState<Mode>(() => modeOf(values))
  const [areas, setAreas] = useState<AvailableArea[] | 'failed' | null>(null)
  const canChoose = type.fields.some((f) => f.name === 'override_areas')
  const id = `scope-${type.type}`

  useEffect(() => {
    if (mode !== 'chosen' || areas !== null) return
    areasApi.available().then((list) => { setAreas(list.filter((a) => a.userSelectable)) }, () => { setAreas('failed') })
  }, [mode, areas])

  const choose = (next: Mode): void => {
    setMode(next)
    if (next === 'areas') set({ distance: '0', ...(canChoose ? { override_areas: '' } : {}) })
    if (next === 'distance') set({ distance: Number(values.distance) > 0 ? values.distance! : '1000', ...(canChoose ? { override_areas: '' } : {}) })
    if (next === 'chosen') set({ distance: '0' })
  }
  const chosen = listItems(values.override_areas ?? '')
  const toggle = (name: string, on: boolean): void => {
    set({ override_areas: (on ? [...chosen, name] : chosen.filter((a) => a !== name)).join(', ') })
  }
  const distanceError = errors.distance
  const areaError = errors.override_areas

  return (
    <fieldset className='field'>
      <legend className='label'>{t('fields.scope.legend')}</legend>
      <div className='check-list'>
        {(['areas', 'distance', ...(canChoose ? ['chosen'] as const : [])] as Mode[]).map((m) => (
          <label key={m} className='check'>
            <input type='radio' name={id} checked={mode === m} onChange={() => { choose(m) }} />
            <span>{t(`fields.scope.${m}`)}</span>
          </label>
        ))}
      </div>
      {mode === 'distance' && (
        <div className='field'>
          <label className='label' htmlFor={`${id}-distance`}>{t('alarms.fields.distance')}</label>
          <span className='input-unit'>
            <input
              id={`${id}-distance`}
              className='input'
              inputMode='numeric'
              value={values.distance ?? ''}
              aria-invalid={distanceError !== undefined}
              aria-describedby={`${id}-distance-help${distanceError !== undefined ? ` ${id}-distance-error` : ''}`}
              onChange={(e) => { set({ distance: e.target.value }) }}
            />
            <span className='unit' aria-hidden='true'>m</span>
          </span>
          <p id={`${id}-distance-help`} className='help'>{t('fields.scope.distanceHelp')}</p>
          {distanceError !== undefined && <p id={`${id}-distance-error`} className='field-error'>{distanceError}</p>}
        </div>
      )}
      {mode === 'chosen' && (
        areas === null
          ? <p className='muted' role='status'>{t('status.loading')}</p>
          : areas === 'failed'
            ? <p className='notice notice-error' role='alert'>{t('fields.scope.areasFailed')}</p>
            : areas.length === 0
              ? <p className='muted'>{t('fields.scope.noAreas')}</p>
              : (
                <div className='check-list check-columns'>
                  {areas.map((a) => (
                    <label key={a.name} className='check'>
                      <input type='checkbox' checked={chosen.includes(a.name.toLowerCase())} onChange={(e) => { toggle(a.name.toLowerCase(), e.target.checked) }} />
                      <span>{a.name}</span>
                    </label>
                  ))}
                </div>
                )
      )}
      {mode !== 'distance' && distanceError !== undefined && <p className='field-error'>{distanceError}</p>}
      {areaError !== undefined && <p className='field-error'>{areaError}</p>}
    </fieldset>
  )
}
