import type { Static } from '@sinclair/typebox'
import type {
  AddressMatchSchema, AddressNameSchema, LanguageSavedSchema, LanguageSchema, LocationAnswerSchema, LocationSchema, PinWordsSchema
} from '../../../schemas/location'
import type { WeatherSchema } from '../../../schemas/scanner'
import { api, withQuery } from './transport'

type Location = Static<typeof LocationSchema>

/** The member's pin, and whether address search is offered. */
export const get = async (signal?: AbortSignal): Promise<Static<typeof LocationAnswerSchema>> => await api('/api/location', { signal })

export const save = async (location: Location): Promise<Location> => await api('/api/location', { method: 'PUT', json: location })

export const geocode = async (q: string, lang: string): Promise<Array<Static<typeof AddressMatchSchema>>> =>
  await api(withQuery('/api/location/geocode', { q, lang }))

export const reverse = async (lat: number, lon: number, lang: string, signal?: AbortSignal): Promise<Static<typeof AddressNameSchema>> =>
  await api(withQuery('/api/location/reverse', { lat, lon, lang }), { signal })

/** A point in words for the dashboard: its address (where a geocoder is configured) and the areas holding it. */
export const place = async (lat: number, lon: number, lang: string, signal?: AbortSignal): Promise<Static<typeof PinWordsSchema>> =>
  await api(withQuery('/api/dashboard/place', { lat, lon, lang }), { signal })

/** The language the engine writes the member's alerts in. */
export const language = async (signal?: AbortSignal): Promise<Static<typeof LanguageSchema>> => await api('/api/location/language', { signal })

export const setLanguage = async (value: string): Promise<Static<typeof LanguageSavedSchema>> =>
  await api('/api/location/language', { method: 'PUT', json: { language: value } })

/** The in-game weather at the pin; undefined when the scanner has none (204). */
export const weather = async (signal?: AbortSignal): Promise<Static<typeof WeatherSchema> | undefined> => await api('/api/location/weather', { signal })
