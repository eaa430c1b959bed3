// The worktree rules as pure functions: branch names, where folders may lie, the overrides that
// neutralize named filters, and reading merge-tree's answer.
import { describe, expect, it } from 'vitest'
import {
  branchName,
  cloneEntry,
  isInside,
  neutralizers,
  overlapProblem,
  parseMergeTree,
  projectTaskModeProblem,
  slug,
  taskBranch,
} from '../../../src/worktrees/policy.ts'

describe('task branch names', () => {
  it('slugs a title into lowercase ASCII words of at most 40 characters', () => {
    expect(slug('Add a greeting module, with tests!')).toBe('add-a-greeting-module-with-tests')
    expect(slug('Ünïcode café')).toBe('unicode-cafe')
    expect(slug('日本語')).toBe('task')
    expect(slug('a'.repeat(60))).toBe('a'.repeat(40))
    expect(slug('one two three four five six seven eight nine ten')).toBe('one-two-three-four-five-six-seven-eight')
  })

  it('names the branch team/<task-id>-<slug> and refuses what is not a task id', () => {
    expect(taskBranch('task-12', 'Fix the parser')).toBe('team/task-12-fix-the-parser')
    expect(() => taskBranch('../x', 'y')).toThrow(/not a task id/)
  })

  it('refuses branch names git would refuse or read as an option', () => {
    for (const bad of ['-x', 'a..b', 'a b', 'a~1', 'x.lock', '.hidden', 'a/.b', 'a//b', 'a@{1}', 'tab\tx'])
      expect(branchName.safeParse(bad).success).toBe(false)
    for (const good of ['main', 'release/1.2', 'feature-x']) expect(branchName.safeParse(good).success).toBe(true)
  })
})

describe('folders', () => {
  it('isInside is true for the folder itself and below it, not for a sibling with the same prefix', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true)
    expect(isInside('/a/b/c', '/a/b')).toBe(true)
    expect(isInside('/a/bc', '/a/b')).toBe(false)
  })

  it('a folder inside or holding a forbidden one is refused, naming it', () => {
    const forbidden = [{ label: 'the DSH home', path: '/home/p/.dsh' }]
    expect(overlapProblem('The project', '/home/p/.dsh/x', forbidden)).toBe('The project /home/p/.dsh/x lies inside the DSH home (/home/p/.dsh).')
    expect(overlapProblem('The project', '/home/p', forbidden)).toBe('The project /home/p holds the DSH home (/home/p/.dsh).')
    expect(overlapProblem('The project', '/home/p/src', forbidden)).toBeNull()
  })
})

describe('neutralizers', () => {
  it('empties every named filter and diff program and makes no filter required', () => {
    const list = ['core.bare\nfalse', 'filter.lfs.clean\ngit-lfs clean', 'filter.x.required\ntrue', 'diff.y.textconv\nhexdump', 'merge.z.driver\nrun'].join(
      '\0',
    )
    expect(neutralizers(list).sort()).toEqual(
      [
        'filter.lfs.clean=',
        'filter.lfs.smudge=',
        'filter.lfs.process=',
        'filter.lfs.required=false',
        'filter.x.clean=',
        'filter.x.smudge=',
        'filter.x.process=',
        'filter.x.required=false',
        'diff.y.textconv=',
        'diff.y.command=',
      ].sort(),
    )
  })
})

describe('merge-tree answers', () => {
  const tree = 'b002ef898dd3da2c8feb5077d08d4094a4c768df'
  it('reads a clean merge', () => {
    expect(parseMergeTree(`${tree}\0`, 0)).toEqual({ clean: true, tree })
  })
  it('reads the conflicting paths and the messages', () => {
    const out = `${tree}\0f\0dir/g\0\x001\0f\0Auto-merging\0Auto-merging f\n\x001\0f\0CONFLICT (contents)\0CONFLICT (content): Merge conflict in f\n\0`
    expect(parseMergeTree(out, 1)).toEqual({
      clean: false,
      tree,
      paths: ['f', 'dir/g'],
      messages: ['Auto-merging f', 'CONFLICT (content): Merge conflict in f'],
    })
  })
  it('refuses an answer without a tree', () => {
    expect(() => parseMergeTree('fatal: x', 128)).toThrow(/no tree/)
  })
})

describe('project tasks and modes', () => {
  it('a read-only chain may not plan project tasks; workspace-write and above may', () => {
    expect(projectTaskModeProblem('read-only')).toMatch(/need workspace-write; this chain runs read-only\. Nothing was planned\.$/)
    expect(projectTaskModeProblem('workspace-write')).toBeNull()
    expect(projectTaskModeProblem('danger-full-access')).toBeNull()
    expect(projectTaskModeProblem(undefined)).toBeNull()
  })
})

describe('the clone registry', () => {
  const entry = { taskId: 'task-1', base: 'a'.repeat(40), state: 'ready', at: '2026-12-01T00:00:00.000Z' }
  it('accepts only branch names taskBranch makes, so a damaged registry cannot name the integration branch', () => {
    expect(cloneEntry.safeParse({ ...entry, branch: taskBranch('task-1', 'Greeting') }).success).toBe(true)
    for (const branch of ['team/integration', 'main', 'team/task-1-x/../../integration', 'team/task-1-']) {
      expect(cloneEntry.safeParse({ ...entry, branch }).success).toBe(false)
    }
  })
})
