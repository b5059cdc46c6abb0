import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** The result of a raw API request. */
export interface RawResponse {
  readonly status: number;
  readonly body: string;
  /** The parsed body, when it was JSON. */
  readonly json: unknown;
}

/** A raw API request: the verb, the path and what is sent. */
export interface RawRequest {
  /** The HTTP method, e.g. `GET`. */
  readonly method: string;
  /** The path, e.g. `/api/v1/namespaces`. */
  readonly path: string;
  /** Sent as is when a string, else as JSON. */
  readonly body?: unknown;
  /** Default `application/json`. */
  readonly contentType?: string;
  /** Default 30 s. */
  readonly timeoutMs?: number;
}

/**
 * A raw JSON request to the apiserver with the credentials of `kubeConfig`. The harness uses
 * this rather than client-node's typed APIs so that objects go over the wire exactly as written.
 */
export async function request(
  kubeConfig: KubeConfig,
  { method, path, body, contentType = 'application/json', timeoutMs = 30_000 }: RawRequest,
): Promise<RawResponse> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(path, cluster.server);
  const opts: https.RequestOptions = { method, headers: { Accept: 'application/json' } };
  await kubeConfig.applyToHTTPSOptions(opts);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  if (payload !== undefined) {
    opts.headers = {
      ...opts.headers,
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(payload),
    };
  }
  return await new Promise<RawResponse>((resolve, reject) => {
    const req = https.request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: text, json });
      });
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`${method} ${path}: no response from the apiserver within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Formats a failed response for an error message: status, reason and message of a Status body. */
export function describeFailure(res: RawResponse): string {
  const status = res.json as { reason?: string; message?: string } | undefined;
  return `HTTP ${res.status}${status?.reason ? ` ${status.reason}` : ''}: ${status?.message ?? res.body.slice(0, 500)}`;
}
