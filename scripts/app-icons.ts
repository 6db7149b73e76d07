/**
 * `npx tsx scripts/app-icons.ts`: the installed app's icons (client/public/icons), drawn from the favicon's
 * bell by Chromium: the normal icon (a white tile, the bell in the accent colour) at 192 and 512 px, and
 * the maskable one (the bell in white on the accent colour, inside the middle 60 %, so any mask a phone
 * applies, circle or squircle, keeps it whole). Run again only when the bell or the built-in accent changes.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { launchChromium } from '../test/browser.js'

const PUBLIC = new URL('../client/public/', import.meta.url)
const OUT = fileURLToPath(new URL('icons/', PUBLIC))
const ACCENT = '#1d4ed8'
const bell = /<path[^>]*\sd="([^"]+)"/.exec(readFileSync(new URL('favicon.svg', PUBLIC), 'utf8'))?.[1]
if (bell === undefined) throw new Error('client/public/favicon.svg has no path')

const svg = (size: number, maskable: boolean): string => {
  // The bell's box is 24 units; its share of the icon: 60 % on a maskable one, 75 % on a normal one.
  const share = maskable ? 0.6 : 0.75
  const scale = (size * share) / 24
  const offset = (size - 24 * scale) / 2
  const tile = maskable
    ? `<rect width="${size}" height="${size}" fill="${ACCENT}"/>`
    : `<rect width="${size}" height="${size}" rx="${size * 0.22}" fill="#ffffff"/>`
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">${tile}` +
    `<path transform="translate(${offset} ${offset}) scale(${scale})" fill="${maskable ? '#ffffff' : ACCENT}" d="${bell}"/></svg>`
}

mkdirSync(OUT, { recursive: true })
const browser = await launchChromium()
try {
  for (const [name, size, maskable] of [['icon-192', 192, false], ['icon-512', 512, false], ['maskable-512', 512, true]] as const) {
    const page = await browser.newPage({ viewport: { width: size, height: size } })
    await page.setContent(`<style>html,body{margin:0;background:transparent}</style>${svg(size, maskable)}`)
    await page.screenshot({ path: `${OUT}${name}.png`, omitBackground: true })
    await page.close()
    console.log(`${OUT}${name}.png`)
  }
} finally {
  await browser.close()
}
