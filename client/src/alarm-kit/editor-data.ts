import type { AlarmDefaults } from '../../../schemas/alarm-defaults'
import { alarms } from '../api'
import { keepAnswer, readOnce } from '../api/read-once'

/** The member's defaults for new alarms (GET/PUT /api/alarm-defaults). */
export type { AlarmDefaults }

export const loadAlarmDefaults = (): Promise<AlarmDefaults> => readOnce('defaults', async () => await alarms.defaults())

/** After the member changed them on the Preferences page, the next editor reads them again. */
export function saveAlarmDefaults (defaults: AlarmDefaults): Promise<AlarmDefaults> {
  return keepAnswer('defaults', alarms.saveDefaults(defaults))
}

/** The engine's template names in GET /api/config/templates for one alarm type, over every platform and language. */
const TEMPLATE_TYPES: Record<string, string[]> = {
  pokemon: ['monster', 'monsterNoIv'],
  fort: ['fort-update'],
  maxbattle: ['maxbattle']
}
export const loadTemplateNames = (type: string): Promise<string[]> => readOnce(`templates|${type}`, async () => {
  const all = await alarms.templates()
  const names = new Set<string>()
  for (const platform of Object.values(all)) {
    if (platform === null || typeof platform !== 'object') continue
    for (const key of TEMPLATE_TYPES[type] ?? [type]) {
      const byLanguage = platform[key]
      if (byLanguage === null || typeof byLanguage !== 'object') continue
      for (const list of Object.values(byLanguage)) if (Array.isArray(list)) for (const name of list) names.add(String(name))
    }
  }
  return [...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
})

/** Which sections of the editor are open, remembered on this device. */
const SECTIONS_KEY = 'alarm-editor.sections'
export function sectionOpen (name: string, fallback: boolean): boolean {
  try {
    const stored = JSON.parse(localStorage.getItem(SECTIONS_KEY) ?? '{}') as Record<string, boolean>
    return typeof stored[name] === 'boolean' ? stored[name] : fallback
  } catch {
    return fallback
  }
}
export function rememberSection (name: string, open: boolean): void {
  try {
    const stored = JSON.parse(localStorage.getItem(SECTIONS_KEY) ?? '{}') as Record<string, boolean>
    localStorage.setItem(SECTIONS_KEY, JSON.stringify({ ...stored, [name]: open }))
  } catch {
    // Private mode without storage: the section simply opens as it did.
  }
}
