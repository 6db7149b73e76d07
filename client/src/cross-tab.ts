import { getRefreshToken } from './session'

/**
 * Coordination of token refreshes between open tabs. Presenting a refresh token a second time is a
 * replay to the server, which revokes the whole session, so two tabs must never refresh with the same
 * token. A Web Lock makes them take turns; but the next tab cannot trust localStorage to show the
 * previous tab's rotation yet (Chromium copies one tab's writes to the others asynchronously). So the
 * tab that rotates also records the spent token in IndexedDB, whose commits every tab sees at once.
 * The record holds a token that is already used up, so it is worth nothing to anyone who reads it.
 *
 * Web Locks exist only on https and localhost; plain-http sites get per-tab refreshes instead. Where
 * IndexedDB is unavailable (some private-browsing modes) the lock works alone.
 */
const LOCK = 'aw.refresh'
const DB_NAME = 'aw.session'
const STORE = 'spent'
const KEY = 'refreshToken'

export const canCoordinate = (): boolean => 'locks' in navigator

export async function withRefreshLock<T> (task: () => Promise<T>): Promise<T> {
  return canCoordinate() ? await navigator.locks.request(LOCK, task) : await task()
}

async function inStore<T> (mode: IDBTransactionMode, query: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, 1)
    open.onupgradeneeded = () => { open.result.createObjectStore(STORE) }
    open.onsuccess = () => { resolve(open.result) }
    open.onerror = () => { reject(open.error ?? new Error('IndexedDB is not available')) }
  })
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode)
      const request = query(tx.objectStore(STORE))
      tx.oncomplete = () => { resolve(request.result) }
      tx.onabort = () => { reject(tx.error ?? new Error('IndexedDB transaction aborted')) }
    })
  } finally {
    db.close()
  }
}

/** Records that `refreshToken` was just exchanged; call before giving up the lock. */
export async function markSpent (refreshToken: string): Promise<void> {
  if (!canCoordinate()) return
  await inStore('readwrite', (store) => store.put(refreshToken, KEY)).catch(() => undefined)
}

export async function wasSpent (refreshToken: string): Promise<boolean> {
  if (!canCoordinate()) return false
  return await inStore<unknown>('readonly', (store) => store.get(KEY)).then((spent) => spent === refreshToken, () => false)
}

/** Resolves when this tab's storage has moved past `spent` (another tab's rotation arrived), or after `ms`. */
export async function storageMovedPast (spent: string, ms = 3000): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      window.removeEventListener('storage', check)
      resolve()
    }
    const check = (): void => { if (getRefreshToken() !== spent) done() }
    const timer = setTimeout(done, ms)
    window.addEventListener('storage', check)
    check()
  })
}

/**
 * Site settings saved in one tab reach this browser's other tabs: an admin who switches an alarm type back
 * on in one tab sees it in the navigation of the others without a reload. Where BroadcastChannel is
 * missing the other tabs catch up the next time they are shown (see the session's visibility refresh).
 */
const SETTINGS_CHANNEL = 'aw.settings'

export function announceSettingsChange (): void {
  if (typeof BroadcastChannel === 'undefined') return
  const channel = new BroadcastChannel(SETTINGS_CHANNEL)
  channel.postMessage('changed')
  channel.close()
}

/** Calls `listener` when another tab of this browser saved a site setting; returns the unsubscribe. */
export function onSettingsChange (listener: () => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined
  const channel = new BroadcastChannel(SETTINGS_CHANNEL)
  channel.onmessage = () => { listener() }
  return () => { channel.close() }
}
