import { useSyncExternalStore } from 'react'
import { registerSW } from 'virtual:pwa-register'

/**
 * The installed app's state, for the shell's banner and the Devices page: whether the browser is
 * offline, whether a new version waits for "Reload", and the browser's install offer when it makes one
 * (Chromium's `beforeinstallprompt`; Safari and Firefox make none). Loaded after the first paint, never
 * on the sign-in path's critical chunk; it registers the service worker (client/sw/sw.ts).
 */

/** Chromium's install offer (not in TypeScript's DOM types: not a web standard). */
interface InstallPromptEvent extends Event {
  prompt: () => Promise<void>
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>
}

export interface AppState {
  offline: boolean
  updateReady: boolean
  /** The browser offers to install the app now. */
  canInstall: boolean
  /** Opened from the home screen (or as an installed desktop app). */
  installed: boolean
}

const standalone = window.matchMedia('(display-mode: standalone)')
let installPrompt: InstallPromptEvent | null = null
let state: AppState = { offline: !navigator.onLine, updateReady: false, canInstall: false, installed: standalone.matches }
const listeners = new Set<() => void>()

function update (change: Partial<AppState>): void {
  state = { ...state, ...change }
  for (const listener of listeners) listener()
}

window.addEventListener('online', () => { update({ offline: false }) })
window.addEventListener('offline', () => { update({ offline: true }) })
standalone.addEventListener('change', () => { update({ installed: standalone.matches }) })
window.addEventListener('beforeinstallprompt', (event) => {
  // Kept for the member's own tap on "Install": the browser's mini-bar would interrupt whatever they do.
  event.preventDefault()
  installPrompt = event as InstallPromptEvent
  update({ canInstall: true })
})
window.addEventListener('appinstalled', () => {
  installPrompt = null
  update({ canInstall: false })
})

// At once, not at the page's load event: this module itself comes after the first paint, often after that event.
const updateServiceWorker = 'serviceWorker' in navigator
  ? registerSW({ immediate: true, onNeedRefresh: () => { update({ updateReady: true }) } })
  : null

/** Switches to the waiting version and reloads the page with it. */
export function reloadToUpdate (): void {
  if (updateServiceWorker === null) window.location.reload()
  else void updateServiceWorker(true)
}

/** Shows the browser's install question; false when it has none to show or the member declined. */
export async function install (): Promise<boolean> {
  const prompt = installPrompt
  if (prompt === null) return false
  installPrompt = null
  update({ canInstall: false })
  await prompt.prompt()
  return (await prompt.userChoice).outcome === 'accepted'
}

function subscribe (listener: () => void): () => void {
  listeners.add(listener)
  return () => { listeners.delete(listener) }
}

export function useAppState (): AppState {
  return useSyncExternalStore(subscribe, () => state)
}
