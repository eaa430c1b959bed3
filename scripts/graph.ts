// Draws the house's folder graph from dependency-cruiser's view of src/ (the same rules as
// `npm run lint`): a Mermaid flowchart, one node per folder (or top-level file), a solid arrow
// where values are imported, a dotted one where only types are. `npm run graph` prints it;
// docs/architecture.md embeds its output.
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs')
const out = execFileSync(process.execPath, [cli, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 << 20,
})
const result = JSON.parse(out) as { modules: { source: string; dependencies: { resolved: string; dependencyTypes: string[] }[] }[] }

const place = (path: string): string | undefined => {
  const m = /^src\/([^/]+)\//.exec(path)
  if (m) return m[1]
  const top = /^src\/([^/]+)\.ts$/.exec(path)
  return top?.[1]
}
const edges = new Map<string, { values: number; types: number }>()
for (const module of result.modules) {
  const from = place(module.source)
  if (!from) continue
  for (const dep of module.dependencies) {
    const to = place(dep.resolved)
    if (!to || to === from) continue
    const key = `${from} ${to}`
    const edge = edges.get(key) ?? { values: 0, types: 0 }
    if (dep.dependencyTypes.includes('type-only')) edge.types++
    else edge.values++
    edges.set(key, edge)
  }
}
const lines = ['flowchart BT']
for (const [key, edge] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
  const [from, to] = key.split(' ')
  lines.push(edge.values ? `  ${from} --> ${to}` : `  ${from} -.-> ${to}`)
}
console.log(lines.join('\n'))
