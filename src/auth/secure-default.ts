/**
 * Secure by default: without API keys the API serves only on a loopback address.
 */
import { isIP } from 'node:net';

/** `localhost`, 127.0.0.0/8, ::1 and ::ffff:127.x; anything else (0.0.0.0, ::, a name) is not. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/** Why the API must not start without keys on `host`, with how to fix it; undefined when it may. */
export function refusalWithoutKeys(host: string, keysFile: string | undefined): string | undefined {
  if (keysFile !== undefined || isLoopbackHost(host)) return undefined;
  return [
    `refusing to start: HOST=${host} is not a loopback address and API_KEYS_FILE is not set, so anyone`,
    'who can reach this port could create, read and cancel every task. Mint a key and point the API at it:',
    '  npm run keys -- create --file config/api-keys.json --owner <team> --scopes tasks:write,tasks:read',
    '  (in the container image: node dist/cli/keys.js create ...)',
    '  API_KEYS_FILE=config/api-keys.json',
    'or bind to a loopback address (HOST=127.0.0.1) to run without authentication.',
  ].join('\n');
}
