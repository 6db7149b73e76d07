import { Type, type Static } from '@sinclair/typebox'

/** One icon of the installed app: `maskable` ones keep their picture inside the middle 80 %. */
const ManifestIconSchema = Type.Object({
  src: Type.String(),
  sizes: Type.String({ description: 'WIDTHxHEIGHT' }),
  type: Type.String(),
  purpose: Type.Union([Type.Literal('any'), Type.Literal('maskable')])
})

/** The web app manifest (W3C Web Application Manifest): what a phone installs, named and coloured by the site's branding. */
export const WebAppManifestSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  short_name: Type.String({ description: 'Under the home-screen icon: at most 12 characters' }),
  start_url: Type.String(),
  scope: Type.String(),
  display: Type.Literal('standalone'),
  theme_color: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
  background_color: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
  icons: Type.Array(ManifestIconSchema)
})
export type WebAppManifest = Static<typeof WebAppManifestSchema>
