import http from 'node:http';
import https from 'node:https';

/** A small HTTP(S) GET for readiness probes; resolves with status and body, never throws on status. */
export async function get(
  url: string,
  tls: { ca?: string; cert?: string; key?: string } = {},
  timeoutMs = 2000,
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  return await new Promise((resolve, reject) => {
    const req = mod.request(
      u,
      {
        method: 'GET',
        agent: false,
        timeout: timeoutMs,
        ...(u.protocol === 'https:' ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
