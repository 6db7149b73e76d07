import { useId, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { ApiError, userLocation } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import { useLoad } from '../../shell/useLoad'

export interface Point { latitude: number, longitude: number }
type AddressMatch = Awaited<ReturnType<typeof userLocation.geocode>>[number]

/** The geocoder's failures in the reader's language; anything else keeps the server's message. */
function geocoderMessage (err: unknown, t: (key: string) => string): string | null {
  if (!(err instanceof ApiError)) return null
  if (err.status === 503 || err.status === 501) return t('maps.addressUnavailable')
  if (err.status === 429) return t('maps.addressTooMany')
  return null
}

/**
 * Finds an address with the site's geocoder and hands the chosen place to `onPick`. A search runs when
 * the form is sent, not on every keystroke: Nominatim's usage policy forbids autocomplete on its public
 * servers, and one request per search keeps a shared geocoder usable for everyone.
 */
export function AddressSearch ({ onPick, disabled }: { onPick: (point: Point) => void, disabled: boolean }) {
  const { t, i18n } = useTranslation()
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const [query, setQuery] = useState('')
  const [found, setFound] = useState<{ query: string, matches: AddressMatch[] } | null>(null)
  const { busy, error, run } = useSubmit()

  const search = (event: FormEvent): void => {
    event.preventDefault()
    const q = query.trim()
    if (q === '') return
    void run(async () => {
      setFound(null)
      try {
        const matches = await userLocation.geocode(q, i18n.language)
        setFound({ query: q, matches })
      } catch (err) {
        const message = geocoderMessage(err, t)
        throw message === null ? err : new ApiError(err instanceof ApiError ? err.status : 0, message)
      }
    })
  }

  const pick = (match: AddressMatch): void => {
    setFound(null)
    setQuery('')
    // The chosen button goes away with the list; the search field is where the reader was.
    input.current?.focus()
    onPick({ latitude: match.lat, longitude: match.lon })
  }

  return (
    <Card className='stack' title={t('maps.addressTitle')}>
      <form className='stack' role='search' onSubmit={search}>
        <div className='field'>
          <label htmlFor={`${id}-query`}>{t('maps.addressLabel')}</label>
          <input
            ref={input} id={`${id}-query`} className='input' type='search' maxLength={200} autoComplete='street-address'
            value={query} onChange={(e) => { setQuery(e.target.value) }}
          />
        </div>
        <div className='row'>
          <button type='submit' className='button button-primary' disabled={busy || disabled || query.trim() === ''} aria-busy={busy}>
            {busy ? t('maps.addressSearching') : t('maps.addressSearch')}
          </button>
        </div>
      </form>
      <div role='status' aria-live='polite'>
        {found !== null && (
          <p className='muted'>{found.matches.length === 0 ? t('maps.addressNone', { query: found.query }) : t('maps.addressFound', { count: found.matches.length })}</p>
        )}
      </div>
      {found !== null && found.matches.length > 0 && (
        <ul className='list address-results'>
          {found.matches.map((match) => (
            <li key={`${match.lat},${match.lon},${match.label}`}>
              <button type='button' className='button' disabled={disabled} onClick={() => { pick(match) }}>
                <span className='visually-hidden'>{t('maps.addressUse')} </span>{match.label}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </Card>
  )
}

/** The address of the pin, as the geocoder names it; nothing at all when the geocoder cannot be asked. */
export function PinAddress ({ pin }: { pin: Point }) {
  const { t, i18n } = useTranslation()
  const [state] = useLoad(async (signal) => {
    return (await userLocation.reverse(pin.latitude, pin.longitude, i18n.language, signal)).label
  }, [pin.latitude, pin.longitude, i18n.language])
  if (state.status === 'failed' && state.code === 501) return null
  return (
    <>
      <dt>{t('maps.address')}</dt>
      <dd aria-live='polite' aria-busy={state.status === 'loading'}>
        {state.status === 'loading'
          ? t('maps.addressLooking')
          : state.status === 'failed'
            ? t('maps.addressLookupFailed')
            : state.data ?? t('maps.addressUnknown')}
      </dd>
    </>
  )
}
