/**
 * Records a watch stream from a real kube-apiserver for informer.bench.ts's client-bound replay:
 * the response body's lines (one watch event each, JSON and its newline, byte for byte as the
 * apiserver wrote them), read with node:https from a resourceVersion until `events` of them that
 * are not bookmarks arrived.
 */
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** What to record. */
export interface WatchRecordingOptions {
  /** The apiserver's kubeconfig. */
  readonly kubeConfig: KubeConfig;
  /** The collection's path, e.g. `/api/v1/namespaces/ns/configmaps`. */
  readonly path: string;
  /** The resourceVersion to watch from. */
  readonly resourceVersion: string;
  /** How many events (not bookmarks) to record. */
  readonly events: number;
  /** Bounds the whole recording. Default 10 minutes. */
  readonly timeoutMs?: number;
}

const LF = 10;

/**
 * The lines of the watch from `resourceVersion`, each a Buffer ending in its `\n`, up to and
 * including the `events`-th event that is not a BOOKMARK (bookmarks before it are kept).
 */
export async function recordWatch(options: WatchRecordingOptions): Promise<Buffer[]> {
  const { kubeConfig, events } = options;
  const opts: https.RequestOptions = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(opts);
  const url = new URL(
    `${kubeConfig.getCurrentCluster()!.server}${options.path}?watch=true&resourceVersion=${encodeURIComponent(options.resourceVersion)}&allowWatchBookmarks=true`,
  );
  const signal = AbortSignal.timeout(options.timeoutMs ?? 600_000);
  return await new Promise<Buffer[]>((resolve, reject) => {
    const lines: Buffer[] = [];
    let seen = 0;
    let pending: Buffer[] = [];
    const req = https.get(url, { ...opts, agent: false, signal }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`recording the watch: HTTP ${res.statusCode}`));
        req.destroy();
        return;
      }
      res.on('data', (data: Buffer) => {
        let start = 0;
        for (let i = data.indexOf(LF); i >= 0 && seen < events; i = data.indexOf(LF, start)) {
          pending.push(data.subarray(start, i + 1));
          start = i + 1;
          const line = Buffer.concat(pending);
          pending = [];
          lines.push(line);
          // A bookmark's type is the first field the apiserver writes.
          if (!line.subarray(0, 24).toString('latin1').includes('"BOOKMARK"')) seen++;
        }
        if (seen === events) {
          resolve(lines);
          req.destroy();
        } else if (start < data.length) pending.push(Buffer.from(data.subarray(start)));
      });
      res.on('end', () => reject(new Error(`the watch ended after ${seen} of ${events} events`)));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (seen < events) reject(err);
    });
  });
}
