// Runs inside the test's outer namespace (`outer-ns.ts`): carries TCP connections across the
// namespace boundary through a Unix socket (Unix sockets at a path cross network namespaces).
//   unix-to-tcp <socket> <port>: listen on <socket>, connect each to 127.0.0.1:<port> here
//   tcp-to-unix <port> <socket>: listen on 127.0.0.1:<port> here (0: any), connect each to <socket>
// Prints "relay ready [port]" once listening; ends with its parent's kill.
import { chmodSync } from 'node:fs'
import { connect, createServer, type Socket } from 'node:net'

const [mode, a, b] = process.argv.slice(2)
const pipe = (c: Socket, up: Socket) => {
  c.pipe(up).pipe(c)
  up.on('error', () => c.destroy())
  c.on('error', () => up.destroy())
}
if (mode === 'unix-to-tcp') {
  const server = createServer((c) => pipe(c, connect(Number(b), '127.0.0.1')))
  server.listen(a!, () => {
    chmodSync(a!, 0o777)
    console.log('relay ready')
  })
} else if (mode === 'tcp-to-unix') {
  const server = createServer((c) => pipe(c, connect(b!)))
  server.listen(Number(a), '127.0.0.1', () => console.log(`relay ready ${(server.address() as { port: number }).port}`))
} else {
  console.error(`unknown mode ${mode}`)
  process.exit(2)
}
