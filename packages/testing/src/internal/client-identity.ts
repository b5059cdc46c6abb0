import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ProxyAuthentication } from '../fault-proxy-contract.ts';
import { list } from './request-match.ts';

/** Who a client is to the fault proxy. */
export interface Identity {
  /** How it authenticated; `rejected` for a client certificate the proxy does not trust. */
  readonly authentication: ProxyAuthentication | 'rejected';
  /** The client certificate's CN. */
  readonly user?: string;
  /** The client certificate's O values. */
  readonly groups: readonly string[];
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The identity of a client: from its certificate when it sent one, else bearer (an
 * `Authorization` header) or anonymous.
 */
export function identify(socket: TLSSocket, headers: IncomingHttpHeaders): Identity {
  const cert = socket.getPeerCertificate();
  if (cert && Object.keys(cert).length > 0) {
    if (!socket.authorized) return { authentication: 'rejected', groups: [] };
    const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
    const user = firstValue(subject.CN);
    return {
      authentication: 'certificate',
      ...(user !== undefined ? { user } : {}),
      groups: list(subject.O),
    };
  }
  if (headers.authorization) return { authentication: 'bearer', groups: [] };
  return { authentication: 'anonymous', groups: [] };
}
