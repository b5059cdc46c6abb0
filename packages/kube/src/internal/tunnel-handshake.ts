/** What one step of a proxy handshake did with the bytes read so far. */
interface HandshakeStep {
  /** How many of the bytes it consumed. */
  readonly used: number;
  /** Bytes to send to the proxy now. */
  readonly send?: Buffer | undefined;
  /** The tunnel is open: any bytes past `used` are the far end's. */
  readonly done?: boolean | undefined;
}

/**
 * One proxy protocol's side of opening a tunnel (HTTP `CONNECT`, SOCKS5), driven by `openTunnel`
 * over a connected socket: `first` is sent, then every read is fed in until a step is `done`.
 */
export interface TunnelHandshake {
  /** The bytes that open the conversation. */
  readonly first: Buffer;
  /**
   * Looks at the unconsumed bytes read so far; returns undefined while they are not enough.
   * @throws ProxyTunnelError when the proxy refuses or answers something else than its protocol.
   */
  feed(bytes: Buffer): HandshakeStep | undefined;
}

/** The tunnel's far end, as the handshake names it: an API server's host and port. */
export interface TunnelTarget {
  /** A host name or an IP address (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
}

/** `host:port`, with an IPv6 address in brackets (a `CONNECT` request target). */
export function authority(target: TunnelTarget): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}
