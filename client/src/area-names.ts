/**
 * A member's own fence reaches the engine as "<display name> ~u<fence id>" (the id keeps two members'
 * fences of one name apart); people are shown only the display name.
 */
export const areaLabel = (name: string): string => name.replace(/ ~u\d+$/, '')
