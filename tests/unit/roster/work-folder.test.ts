import { describe, expect, it } from 'vitest'
import { folderConflict, within } from '../../../src/roster/work-folder.ts'

const HOME = '/home/me/.dsh'
const TEAM = '/home/me/.dsh/bot'
const WORKSPACE = '/home/me/.dsh/bot/workspace'
const conflict = (folder: string) => folderConflict(folder, [HOME, TEAM], WORKSPACE)

describe('where a Bot may work', () => {
  it('within: the folder itself or below it, never a sibling that shares a prefix', () => {
    expect(within('/a/b', '/a/b')).toBe(true)
    expect(within('/a/b/c', '/a/b')).toBe(true)
    expect(within('/a/bc', '/a/b')).toBe(false)
    expect(within('/a', '/a/b')).toBe(false)
    expect(within('/anything', '/')).toBe(true)
  })

  it('allows folders outside the DSH home and the team folder, and the team workspace and below', () => {
    for (const ok of ['/home/me/code/x', '/srv/app', '/home/me/.dsh-other', WORKSPACE, `${WORKSPACE}/project`]) expect(conflict(ok)).toBeUndefined()
  })

  it('refuses the DSH home, the team folder, anything inside them outside the workspace, and any folder holding them', () => {
    for (const inside of [HOME, `${HOME}/profiles/web`, TEAM, `${TEAM}/memory`]) expect(conflict(inside)).toMatch(/^it lies inside /)
    for (const holding of ['/', '/home', '/home/me']) expect(conflict(holding)).toMatch(/^it holds /)
  })

  it('protects a team folder configured outside the DSH home the same way', () => {
    const elsewhere = (folder: string) => folderConflict(folder, [HOME, '/data/team'], '/data/team/workspace')
    expect(elsewhere('/data/team')).toMatch(/^it lies inside \/data\/team/)
    expect(elsewhere('/data')).toMatch(/^it holds \/data\/team/)
    expect(elsewhere('/data/team/workspace/x')).toBeUndefined()
    expect(elsewhere('/data/other')).toBeUndefined()
  })
})
