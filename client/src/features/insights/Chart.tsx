import { useEffect, useRef, useState } from 'react'
import {
  BarController, BarElement, CategoryScale, Chart as ChartJs, Filler, LinearScale, LineController, LineElement, PointElement, Tooltip,
  type ChartConfiguration
} from 'chart.js'

// Only what the insight charts draw is registered, so the page's chunk carries no other chart type.
ChartJs.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Filler, Tooltip)

export interface Series {
  label: string
  values: number[]
  /** Per-bar emphasis (drawn in the warning colour), e.g. members above the alert limit. */
  marked?: boolean[]
}

interface Props {
  kind: 'line' | 'bar' | 'hbar'
  labels: string[]
  series: Series[]
  /** The text alternative: what the chart shows, in a sentence (the table behind it has every value). */
  summary: string
  /** Formats axis and tooltip numbers in the interface language. */
  format: (value: number) => string
}

/** The theme's colours as the page computes them now (light or dark, and the admin's accent). */
function themeColours () {
  const style = getComputedStyle(document.documentElement)
  const read = (name: string) => style.getPropertyValue(name).trim()
  return { text: read('--text'), muted: read('--muted'), grid: read('--border'), accent: read('--accent'), second: read('--muted'), marked: read('--danger-text') }
}

/** Follows `data-theme` on <html>: a theme switch redraws the chart in the new colours. */
function useThemeVersion (): number {
  const [version, setVersion] = useState(0)
  useEffect(() => {
    const observer = new MutationObserver(() => { setVersion((v) => v + 1) })
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'style'] })
    return () => { observer.disconnect() }
  }, [])
  return version
}

/**
 * One chart, drawn on a canvas by Chart.js and announced as an image with `summary`; its numbers are in
 * the table behind it. Horizontal bars (`hbar`) keep long names readable on a 360 px phone.
 */
export function Chart ({ kind, labels, series, summary, format }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const theme = useThemeVersion()
  // Panels build their series on every render: the chart is drawn again only when the numbers change.
  const drawn = JSON.stringify([labels, series])
  useEffect(() => {
    if (canvas.current === null) return
    const colours = themeColours()
    const palette = [colours.accent, colours.second]
    const config: ChartConfiguration<'bar' | 'line'> = {
      type: kind === 'line' ? 'line' : 'bar',
      data: {
        labels,
        datasets: series.map((s, i) => {
          const colour = palette[i % palette.length] as string
          return {
            label: s.label,
            data: s.values,
            borderColor: colour,
            backgroundColor: s.marked === undefined ? colour : s.marked.map((m) => (m ? colours.marked : colour)),
            borderWidth: kind === 'line' ? 2 : 0,
            pointRadius: 0,
            pointHitRadius: 6,
            tension: 0.2
          }
        })
      },
      options: {
        indexAxis: kind === 'hbar' ? 'y' : 'x',
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${format(Number(item.raw))}` } }
        },
        scales: {
          x: { ticks: { color: colours.muted, maxRotation: 0, autoSkip: true, autoSkipPadding: 12, ...(kind === 'hbar' && { callback: (v) => format(Number(v)) }) }, grid: { color: kind === 'hbar' ? colours.grid : 'transparent' }, beginAtZero: true },
          y: { ticks: { color: colours.text, autoSkip: kind !== 'hbar', ...(kind !== 'hbar' && { callback: (v) => format(Number(v)), color: colours.muted }) }, grid: { color: kind === 'hbar' ? 'transparent' : colours.grid }, beginAtZero: true }
        }
      }
    }
    const chart = new ChartJs(canvas.current, config)
    return () => { chart.destroy() }
    // `drawn` stands for `labels` and `series`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [kind, drawn, format, theme])
  const height = kind === 'hbar' ? Math.max(120, labels.length * 26 + 40) : 220
  return (
    <div className='insight-chart' style={{ height }}>
      <canvas ref={canvas} role='img' aria-label={summary}>{summary}</canvas>
    </div>
  )
}
