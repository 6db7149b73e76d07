import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'

const gzipAsync = promisify(gzip)

/** User fences per gzip member, by id: a changed fence recompresses the member of its block only. */
export const BLOCK_IDS = 100

const HEAD = '{"status":"ok","data":['
const TAIL = ']}'

/** One served user fence: its feed id and its entry, already serialized. */
export interface FenceText { id: number, text: string }

/** One built feed: the JSON text, its gzip form and the tag both representations' ETags derive from. */
export interface FeedBody { body: string, gzipped: Buffer, etag: string }

interface Member { text: string, gz: Buffer }

/**
 * Builds the feed's body and its gzip form from the admin part and the user fences, keeping the gzip
 * members of the parts that did not change. Compressing a whole feed of thousands of fences took about
 * half a second per user fence change; now one change compresses its block of BLOCK_IDS ids.
 *
 * The gzip form is a series of gzip members (RFC 1952, 2.2: a gzip file is one or more members, and a
 * reader decompresses them one after another into one stream): the head with the admin part, kept while
 * Koji's list is the same; one member per block of user fence ids (by `id / BLOCK_IDS`), kept while its
 * text is the same; the tail. Node's zlib (PoracleJS's downloader) and Go's gzip reader (PoracleNG's)
 * read every member.
 */
export function createFeedBodies (compress: (text: string) => Promise<Buffer> = gzipAsync) {
  let head: { adminHash: string, member: Member } | null = null
  let blocks = new Map<number, Member>()
  let tail: Buffer | null = null

  async function member (text: string, kept: Member | undefined): Promise<Member> {
    return kept?.text === text ? kept : { text, gz: await compress(text) }
  }

  return {
    /** `fences` in feed order (ascending id). */
    async build (adminHash: string, adminJson: string, fences: readonly FenceText[]): Promise<FeedBody> {
      const texts = new Map<number, string[]>()
      for (const fence of fences) {
        const block = Math.floor(fence.id / BLOCK_IDS)
        const list = texts.get(block)
        if (list === undefined) texts.set(block, [fence.text])
        else list.push(fence.text)
      }
      // Every entry but the feed's first is preceded by a comma; the comma belongs to the block's text.
      let first = adminJson === ''
      const userTexts = [...texts].map(([block, list]) => {
        const text = (first ? '' : ',') + list.join(',')
        first = false
        return [block, text] as const
      })
      const headText = HEAD + adminJson
      const [headMember, tailGz, ...blockMembers] = await Promise.all([
        head?.adminHash === adminHash ? head.member : member(headText, undefined),
        tail ?? compress(TAIL),
        ...userTexts.map(([block, text]) => member(text, blocks.get(block)))
      ])
      head = { adminHash, member: headMember }
      tail = tailGz
      blocks = new Map(userTexts.map(([block], i) => [block, blockMembers[i] as Member]))
      const userPart = userTexts.map(([, text]) => text).join('')
      return {
        body: headText + userPart + TAIL,
        gzipped: Buffer.concat([headMember.gz, ...blockMembers.map((m) => m.gz), tailGz]),
        // The body is the head, the user part and a fixed tail; the admin part is named by its hash.
        etag: createHash('sha256').update(adminHash).update('\n').update(userPart).digest('base64url').slice(0, 27)
      }
    }
  }
}
