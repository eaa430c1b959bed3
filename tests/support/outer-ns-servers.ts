// Servers for the network tests, run inside the test's namespaces (`outer-ns.ts`):
//   outer: one on 127.0.0.1 and one on every address (reached through the namespace's own address)
//   internet: one on every address, port 80 (the inner "internet" host)
// Each answers 200 "<name>"; prints "servers <loopback port> <any port>" (or "internet 80") when up.
import { createServer } from 'node:http'

const serve = (name: string, port: number, host: string) =>
  new Promise<number>((resolve) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(name)
    })
    server.listen(port, host, () => resolve((server.address() as { port: number }).port))
  })

if (process.argv[2] === 'internet') {
  await serve('internet', 80, '0.0.0.0')
  console.log('internet 80')
} else {
  const loopback = await serve('loopback', 0, '127.0.0.1')
  const any = await serve('outer-address', 0, '0.0.0.0')
  console.log(`servers ${loopback} ${any}`)
}
