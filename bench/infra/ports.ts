/** Free loopback TCP ports for the servers the benchmark starts. */
import { createServer } from 'node:net';

/** A port the OS just handed out on 127.0.0.1 and released; free unless someone races for it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port assigned');
  return address.port;
}
