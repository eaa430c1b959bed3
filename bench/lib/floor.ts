// The durable floor shared by the benches: the least a durable atomic write of some bytes costs —
// a temp file, write, fsync, close, rename, directory fsync — so our own saves can be printed as a
// ratio to it, measured side by side in the same run on the same filesystem.
import fsp from 'node:fs/promises'
import path from 'node:path'

let floorSeq = 0

export async function durableWrite(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}${floorSeq++}`
  const handle = await fsp.open(tmp, 'wx', 0o600)
  await handle.writeFile(text)
  await handle.sync()
  await handle.close()
  await fsp.rename(tmp, file)
  const dir = await fsp.open(path.dirname(file), 'r')
  await dir.sync()
  await dir.close()
}
