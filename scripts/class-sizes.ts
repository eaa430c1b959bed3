/**
 * Prints the size of every class in `src/` over a line threshold (default 300): its lines and its
 * public members — methods, accessors, and non-private fields holding a function or a part (an
 * instance of a class) — as a Markdown table, largest first. `--max-lines N --max-public N` make
 * it exit 1 when a class is over either bound. Reads types through the TypeScript checker; no I/O but reading.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))

interface ClassSize {
  file: string
  name: string
  lines: number
  publicMembers: number
  privateMembers: number
}

function option(name: string, fallback: number | undefined): number | undefined {
  const i = process.argv.indexOf(name)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

function isPrivate(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true
  const mods = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : []
  return mods.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)
}

/** A field counts when it holds a function or an instance of a class (a part others may call). */
function fieldCounts(checker: ts.TypeChecker, member: ts.PropertyDeclaration): boolean {
  const type = checker.getTypeAtLocation(member)
  if (type.getCallSignatures().length > 0) return true
  const symbol = type.getSymbol()
  return !!symbol && (symbol.flags & ts.SymbolFlags.Class) !== 0
}

function measure(checker: ts.TypeChecker, file: ts.SourceFile, node: ts.ClassDeclaration): ClassSize {
  const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line
  const end = file.getLineAndCharacterOfPosition(node.getEnd()).line
  let publicMembers = 0
  let privateMembers = 0
  for (const member of node.members) {
    const callable =
      ts.isMethodDeclaration(member) ||
      ts.isGetAccessorDeclaration(member) ||
      ts.isSetAccessorDeclaration(member) ||
      (ts.isPropertyDeclaration(member) && fieldCounts(checker, member))
    if (!callable) continue
    // A get/set pair is one accessor.
    if (ts.isSetAccessorDeclaration(member) && node.members.some((m) => ts.isGetAccessorDeclaration(m) && m.name.getText(file) === member.name.getText(file)))
      continue
    if (isPrivate(member)) privateMembers++
    else publicMembers++
  }
  return { file: path.relative(root, file.fileName), name: node.name?.text ?? '(anonymous)', lines: end - start + 1, publicMembers, privateMembers }
}

const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
if (!config) throw new Error('tsconfig.json could not be read')
const program = ts.createProgram(
  config.fileNames.filter((f) => f.includes(`${path.sep}src${path.sep}`)),
  config.options,
)
const checker = program.getTypeChecker()
const sizes: ClassSize[] = []
for (const file of program.getSourceFiles()) {
  if (!file.fileName.startsWith(path.join(root, 'src'))) continue
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node)) sizes.push(measure(checker, file, node))
    ts.forEachChild(node, visit)
  }
  visit(file)
}

const threshold = option('--over', 300)!
const maxLines = option('--max-lines', undefined)
const maxPublic = option('--max-public', undefined)
const shown = sizes.filter((s) => s.lines > threshold).sort((a, b) => b.lines - a.lines)
console.log('| class | file | lines | public | private |')
console.log('| --- | --- | ---: | ---: | ---: |')
for (const s of shown) console.log(`| \`${s.name}\` | \`${s.file}\` | ${s.lines} | ${s.publicMembers} | ${s.privateMembers} |`)
const over = sizes.filter((s) => (maxLines !== undefined && s.lines > maxLines) || (maxPublic !== undefined && s.publicMembers > maxPublic))
if (over.length) {
  console.error(`over the bounds: ${over.map((s) => `${s.name} (${s.lines} lines, ${s.publicMembers} public)`).join(', ')}`)
  process.exitCode = 1
}
