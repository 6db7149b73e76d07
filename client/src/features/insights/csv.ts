/** One CSV field: quoted when it holds a separator, a quote or a line break (RFC 4180); formulas defused. */
function field (value: string | number | boolean): string {
  let text = String(value)
  // A cell starting with = + - @ is a formula to a spreadsheet: a member's name must not run as one.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv (header: string[], rows: Array<Array<string | number | boolean>>): string {
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n'
}

/** Saves the table as a CSV file the browser downloads (with a byte order mark, so spreadsheets read UTF-8). */
export function downloadCsv (fileName: string, header: string[], rows: Array<Array<string | number | boolean>>): void {
  const url = URL.createObjectURL(new Blob(['\uFEFF', toCsv(header, rows)], { type: 'text/csv;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.click()
  URL.revokeObjectURL(url)
}
