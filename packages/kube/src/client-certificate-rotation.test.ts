import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type CertificatePair, createCertificateAuthority, waitFor } from '@kubeloom/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localKubeConfig } from '../test/local-kubeconfig.ts';
import { builtins } from './builtins.ts';
import { HttpApiClient } from './http-api-client.ts';

describe('client certificates from an exec plugin are rotated (against a local HTTPS server)', () => {
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'test', hosts: ['127.0.0.1'], usage: 'server' });
  const alice = ca.issue({ commonName: 'alice', usage: 'client' });
  const bob = ca.issue({ commonName: 'bob', usage: 'client' });
  let dir: string;
  let server: Server;
  let api: HttpApiClient;
  let hold: Array<() => void>;
  const sockets = new Set<Socket>();

  /** What the plugin prints next: `pair`, already expired, so the client runs it for every request. */
  const issueNext = (pair: CertificatePair) =>
    writeFileSync(
      path.join(dir, 'credential.json'),
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: {
          clientCertificateData: pair.certPem,
          clientKeyData: pair.keyPem,
          expirationTimestamp: '2000-01-01T00:00:00Z',
        },
      }),
    );

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kubeloom-exec-'));
    writeFileSync(
      path.join(dir, 'plugin.mjs'),
      "import { readFileSync } from 'node:fs';\nprocess.stdout.write(readFileSync(process.env.CREDENTIAL_FILE, 'utf8'));\n",
    );
    issueNext(alice);
    hold = [];
    server = createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req: IncomingMessage, res: ServerResponse) => {
        const peer = (
          req.socket as unknown as { getPeerCertificate(): { subject?: { CN?: string } } }
        ).getPeerCertificate();
        const answer = () => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name: peer.subject?.CN ?? '' } }));
        };
        if (req.url?.includes('/slow')) hold.push(answer);
        else answer();
      },
    );
    server.on('secureConnection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = localKubeConfig({
      port: (server.address() as AddressInfo).port,
      ca,
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [path.join(dir, 'plugin.mjs')],
          env: [{ name: 'CREDENTIAL_FILE', value: path.join(dir, 'credential.json') }],
        },
      },
    });
    api = new HttpApiClient(kc, { requestTimeoutMs: 10_000 });
  });

  afterEach(async () => {
    await api[Symbol.asyncDispose]();
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const whoami = async (name = 'x') =>
    (await api.get({ resource: builtins.ConfigMap, name, namespace: 'ns' })).metadata?.name;

  it('connects with the renewed certificate, and closes the old connections once idle', async () => {
    expect(await whoami()).toBe('alice');
    expect(await whoami()).toBe('alice'); // same certificate: the connection is reused
    expect(sockets.size).toBe(1);

    issueNext(bob);
    expect(await whoami()).toBe('bob');
    // alice's idle connection is closed; only bob's stays.
    await waitFor("alice's connection to close", () => sockets.size === 1);
    expect(await whoami()).toBe('bob');
  });

  it('lets a request in flight on the old certificate finish, then closes its connection', async () => {
    const slow = whoami('slow');
    await waitFor('the slow request to reach the server', () => hold.length === 1);
    issueNext(bob);
    expect(await whoami()).toBe('bob');
    expect(sockets.size).toBe(2); // alice's connection still carries the slow request
    hold.shift()?.();
    expect(await slow).toBe('alice');
    await waitFor("alice's connection to close", () => sockets.size === 1);
    expect(await whoami()).toBe('bob');
  });
});
