import type { Page } from 'playwright-core'

/**
 * Steps in an open alarm form that the browser tests and the browser benchmarks both take; no test
 * harness here, so a benchmark can import it as a plain script.
 */

/** Picks a pokemon in an open alarm form: searches, taps the match named `name`, waits for the choice. */
export async function choosePokemon (page: Page, search: string, name: string): Promise<void> {
  const picker = page.locator('.grid-picker')
  await picker.getByRole('searchbox', { name: 'Search pokémon' }).fill(search)
  // "Mewtwo (Armored)" is a form tile: shown once "All forms" is off.
  if (name.includes('(')) await picker.getByRole('switch', { name: 'All forms' }).uncheck()
  await picker.getByTestId('pokemon-grid').getByRole('button', { name, exact: true }).click()
  await picker.getByRole('button', { name: `Remove ${name}` }).waitFor()
}
