/**
 * The metrics endpoint (controller-runtime's `--metrics-bind-address`). Secure by default, as
 * controller-runtime's `filters.WithAuthenticationAndAuthorization`: HTTPS, and every scrape
 * carries a bearer token that a TokenReview authenticates and a SubjectAccessReview authorizes
 * for `get` on the non-resource URL `/metrics` (401 without a valid token, 403 without the
 * permission). `--metrics-secure=false` serves plain HTTP without checks, for local runs.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { defineResource, type KubeClient, type KubeObject, type Logger } from '@kubeloom/kube';
import type { BindAddress } from './flags.ts';
import { type ListeningServer, listen } from './probes.ts';

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  readonly address: BindAddress;
  /** What serves the metrics text (a prom-client `Registry`). */
  readonly registry: { readonly contentType: string; metrics(): Promise<string> };
  /** HTTPS with authentication and authorization through `kube`; omit for plain HTTP. */
  readonly secure?: { readonly kube: KubeClient; readonly cert: string; readonly key: string } | undefined;
  readonly logger: Logger;
}

interface Review extends KubeObject {
  spec?: Record<string, unknown>;
  status?: { authenticated?: boolean; allowed?: boolean; user?: UserInfo; error?: string; reason?: string };
}
interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

const TokenReview = defineResource<Review>({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
});
const SubjectAccessReview = defineResource<Review>({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
});

/** How long a verdict is reused for the same token (an RBAC change shows within this). */
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 1024;

type Verdict = { code: 200 } | { code: 401 | 403; message: string };

/** Authenticates and authorizes bearer tokens for `get /metrics`, caching verdicts briefly. */
function createAuthorizer(kube: KubeClient, logger: Logger): (token: string | undefined) => Promise<Verdict> {
  const cache = new Map<string, { expires: number; verdict: Verdict }>();
  return async (token) => {
    if (!token) return { code: 401, message: 'Unauthorized: a bearer token is required' };
    const key = createHash('sha256').update(token).digest('hex');
    const hit = cache.get(key);
    if (hit && hit.expires > Date.now()) return hit.verdict;
    let verdict: Verdict;
    try {
      const review = (await kube.api.create(TokenReview, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token },
      })) as Review;
      const user = review.status?.user;
      if (!review.status?.authenticated || !user) {
        verdict = { code: 401, message: 'Unauthorized: the token was not accepted' };
      } else {
        const sar = (await kube.api.create(SubjectAccessReview, {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path: '/metrics', verb: 'get' },
          },
        })) as Review;
        verdict = sar.status?.allowed
          ? { code: 200 }
          : { code: 403, message: `Forbidden: user "${user.username}" cannot get path "/metrics"` };
      }
    } catch (error) {
      // The apiserver could not decide: refuse this scrape, cache nothing.
      logger.warn('metrics authentication failed', { err: error });
      return { code: 401, message: 'Unauthorized: the token could not be reviewed' };
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(key, { expires: Date.now() + CACHE_TTL_MS, verdict });
    return verdict;
  };
}

/** Starts listening; resolves once the port is bound. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<ListeningServer> {
  const authorize = options.secure ? createAuthorizer(options.secure.kube, options.logger) : undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics') return void res.writeHead(404).end();
    if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
    if (authorize) {
      const header = req.headers.authorization ?? '';
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      const verdict = await authorize(token);
      if (verdict.code !== 200)
        return void res.writeHead(verdict.code, { 'content-type': 'text/plain' }).end(verdict.message);
    }
    const body = await options.registry.metrics();
    res.writeHead(200, { 'content-type': options.registry.contentType }).end(body);
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error('serving metrics failed', { err: error });
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  };
  const server = options.secure
    ? createHttpsServer(
        { cert: options.secure.cert, key: options.secure.key, minVersion: 'TLSv1.2' },
        listener,
      )
    : createHttpServer(listener);
  return listen(server, options.address);
}
