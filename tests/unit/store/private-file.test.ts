// writePrivateFile on real files: whole content, mode 0600, replaces a symbolic link at the target
// instead of writing through it, and leaves no temp file behind when it fails; its synchronous twin
// and the 0600 append (which refuses a symbolic link).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { appendPrivateFileSync, isPrivateTemp, makePrivateDir, writePrivateFile, writePrivateFileSync } from '../../../src/core/private-file.ts'

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'bot-private-'))

describe('writePrivateFile', () => {
  it('writes the whole text with mode 0600, replacing an existing 0644 file', async () => {
    const dir = tmp()
    const file = path.join(dir, 'usage.json')
    fs.writeFileSync(file, 'old', { mode: 0o644 })
    await writePrivateFile(file, '{"a":1}\n')
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(dir)).toEqual(['usage.json'])
  })

  it('replaces a symbolic link at the target and leaves the link target untouched', async () => {
    const dir = tmp()
    const outside = path.join(dir, 'outside.txt')
    fs.writeFileSync(outside, 'precious')
    const file = path.join(dir, 'secrets.json')
    fs.symlinkSync(outside, file)
    await writePrivateFile(file, 'new')
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toBe('new')
    expect(fs.readFileSync(outside, 'utf8')).toBe('precious')
  })

  it('fails without leaving a temp file when the target cannot be replaced', async () => {
    const dir = tmp()
    const file = path.join(dir, 'state.json')
    fs.mkdirSync(file) // a directory where the file should be: rename fails
    await expect(writePrivateFile(file, 'x')).rejects.toMatchObject({ code: expect.stringMatching(/EISDIR|ENOTEMPTY|EEXIST/) })
    expect(fs.readdirSync(dir)).toEqual(['state.json'])
  })

  it('recognises its own temp names only', () => {
    expect(isPrivateTemp('state.json.3735928559', 'state.json')).toBe(true)
    expect(isPrivateTemp('state.json.', 'state.json')).toBe(false)
    expect(isPrivateTemp('state.json.broken-2025', 'state.json')).toBe(false)
    expect(isPrivateTemp('usage.json.12', 'state.json')).toBe(false)
  })
})

describe('writePrivateFileSync and appendPrivateFileSync', () => {
  it('write: whole text, 0600, a symbolic link at the target replaced, no temp left when it fails', () => {
    const dir = tmp()
    const outside = path.join(dir, 'outside.txt')
    fs.writeFileSync(outside, 'precious')
    const file = path.join(dir, 'group-1.jsonl')
    fs.symlinkSync(outside, file)
    writePrivateFileSync(file, 'new\n')
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toBe('new\n')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readFileSync(outside, 'utf8')).toBe('precious')
    const blocked = path.join(dir, 'blocked.jsonl')
    fs.mkdirSync(blocked)
    expect(() => writePrivateFileSync(blocked, 'x')).toThrow()
    expect(fs.readdirSync(dir).sort()).toEqual(['blocked.jsonl', 'group-1.jsonl', 'outside.txt'])
  })

  it('append: creates 0600 whatever the umask, returns the size after, refuses a symbolic link', () => {
    const dir = tmp()
    const file = path.join(dir, 'group-1.jsonl')
    const old = process.umask(0o000)
    try {
      expect(appendPrivateFileSync(file, 'one\n')).toBe(4)
      expect(appendPrivateFileSync(file, 'two\n')).toBe(8)
    } finally {
      process.umask(old)
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('one\ntwo\n')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const outside = path.join(dir, 'outside.txt')
    fs.writeFileSync(outside, 'precious')
    const link = path.join(dir, 'group-2.jsonl')
    fs.symlinkSync(outside, link)
    expect(() => appendPrivateFileSync(link, 'x')).toThrow(expect.objectContaining({ code: 'ELOOP' }))
    expect(fs.readFileSync(outside, 'utf8')).toBe('precious')
  })
})

describe('makePrivateDir', () => {
  it('creates missing parents and the folder itself 0700; an existing folder is left as it is', async () => {
    const root = tmp()
    const dir = path.join(root, 'home', 'bot')
    expect(await makePrivateDir(dir)).toBe(true)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    fs.chmodSync(dir, 0o750)
    expect(await makePrivateDir(dir)).toBe(false)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o750)
  })
})
