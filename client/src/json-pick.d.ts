/** A JSON file cut to some of its top-level parts (client/json-pick.ts). */
declare module '*&pick' {
  const picked: Record<string, Record<string, unknown>>
  export default picked
}
