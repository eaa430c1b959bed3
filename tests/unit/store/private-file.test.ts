// writePrivateFile on real files: whole content, mode 0600, replaces a symbolic link at the target
// instead of writing through it, and leaves no temp file behind when it fails.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { isPrivateTemp, makePrivateDir, writePrivateFile } from '../../../src/core/private-file.ts'

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
