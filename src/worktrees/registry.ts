/**
 * The clone registry: `clones.json` in the plugin's root, every task clone with its branch, its
 * base and its state (`creating`, `ready`, `removing`), written whole and durably before the
 * folder it names changes, so start-up knows every clone. Deliberately one writer (the team
 * writer's process) and no git: changes are queued in this process and validated on read.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { writePrivateFile } from '../core/private-file.ts'
import { formatIssues } from '../core/zod-issues.ts'
import { type CloneEntry, type Registry, registrySchema, WORKTREE_LIMITS } from './policy.ts'

export class CloneRegistry {
  readonly file: string
  #entries = new Map<string, CloneEntry>()
  #queue: Promise<void> = Promise.resolve()

  private constructor(file: string) {
    this.file = file
  }

  /** Open `<root>/clones.json` (missing: empty). A file that fails validation is an error, never dropped. */
  static async open(root: string): Promise<CloneRegistry> {
    const registry = new CloneRegistry(path.join(root, 'clones.json'))
    let text: string | undefined
    try {
      text = await readFile(registry.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    if (text !== undefined) {
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        throw new Error(`${registry.file} is not JSON; move it aside to start with no known clones.`)
      }
      const parsed = registrySchema.safeParse(json)
      if (!parsed.success) throw new Error(`${registry.file} is damaged: ${formatIssues(parsed.error)}`)
      for (const e of parsed.data.clones) registry.#entries.set(e.taskId, e)
    }
    return registry
  }

  get(taskId: string): CloneEntry | undefined {
    return this.#entries.get(taskId)
  }

  list(): CloneEntry[] {
    return [...this.#entries.values()]
  }

  /** Set (or with `null` drop) one entry and write the file; resolves once it is durable. */
  set(taskId: string, entry: CloneEntry | null): Promise<void> {
    if (entry && !this.#entries.has(taskId) && this.#entries.size >= WORKTREE_LIMITS.clones) {
      return Promise.reject(new Error(`at most ${WORKTREE_LIMITS.clones} task clones may exist at once; finish or cancel tasks first.`))
    }
    if (entry) this.#entries.set(taskId, entry)
    else this.#entries.delete(taskId)
    const data: Registry = { version: 1, clones: [...this.#entries.values()] }
    const text = `${JSON.stringify(data, null, 1)}\n`
    const write = this.#queue.then(() => writePrivateFile(this.file, text))
    this.#queue = write.catch(() => {})
    return write
  }
}
