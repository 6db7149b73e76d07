/**
 * The parts of a rendered message the preview shows, read defensively: the engine renders whatever the
 * site's templates say, so every part may be missing or of another shape.
 */
export interface EmbedField { name: string, value: string, inline: boolean }
export interface MessageParts {
  content: string | null
  embed: {
    title: string | null
    url: string | null
    description: string | null
    /** A CSS colour from the embed's integer colour. */
    color: string | null
    fields: EmbedField[]
    thumbnail: string | null
    image: string | null
    footer: string | null
  } | null
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' ? String(value) : null)
const record = (value: unknown): Record<string, unknown> | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null)
/** Only web addresses are shown as images or links; anything else a template produced is left out. */
const webAddress = (value: unknown): string | null => {
  const candidate = text(value)
  return candidate !== null && /^https:\/\//i.test(candidate) ? candidate : null
}

function colour (value: unknown): string | null {
  const n = typeof value === 'string' ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffff ? `#${n.toString(16).padStart(6, '0')}` : null
}

export function messageParts (message: Record<string, unknown>): MessageParts {
  // Discord templates name one `embed`; webhook-style ones a list of `embeds`.
  const embed = record(message.embed) ?? (Array.isArray(message.embeds) ? record(message.embeds[0]) : null)
  return {
    content: text(message.content),
    embed: embed === null
      ? null
      : {
          title: text(embed.title),
          url: webAddress(embed.url),
          description: text(embed.description),
          color: colour(embed.color),
          fields: (Array.isArray(embed.fields) ? embed.fields : []).flatMap((f) => {
            const field = record(f)
            const name = text(field?.name)
            const value = text(field?.value)
            return name === null && value === null ? [] : [{ name: name ?? '', value: value ?? '', inline: field?.inline === true }]
          }),
          thumbnail: webAddress(record(embed.thumbnail)?.url),
          image: webAddress(record(embed.image)?.url),
          footer: text(record(embed.footer)?.text)
        }
  }
}
