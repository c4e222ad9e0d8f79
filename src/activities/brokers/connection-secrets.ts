/**
 * A declared broker's password and TLS files, read when its connection opens (a rotated secret
 * file takes effect on the next connection).
 */
import { readFileSync } from 'node:fs';
import type { BrokerDeclaration } from '../../config/brokers.js';
import type { TlsFiles } from './publisher.js';

export function passwordOf(declaration: BrokerDeclaration): string | undefined {
  if (declaration.passwordFile !== undefined) return readFileSync(declaration.passwordFile, 'utf8').trim();
  return declaration.password;
}

export function tlsFilesOf(declaration: BrokerDeclaration): TlsFiles | undefined {
  const tls = declaration.tls;
  if (!tls) return undefined;
  return {
    ...(tls.caFile !== undefined && { ca: readFileSync(tls.caFile) }),
    ...(tls.certFile !== undefined && { cert: readFileSync(tls.certFile) }),
    ...(tls.keyFile !== undefined && { key: readFileSync(tls.keyFile) }),
    ...(tls.serverName !== undefined && { servername: tls.serverName }),
  };
}
