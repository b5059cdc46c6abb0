import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { describeFailure, request } from './internal/request.ts';

/** A CustomResourceDefinition as plain JSON (the fields the installer reads). */
export interface CRDObject {
  /** Must be `apiextensions.k8s.io/v1`. */
  apiVersion: string;
  /** Must be `CustomResourceDefinition`. */
  kind: string;
  /** Object metadata; `name` is `<plural>.<group>`. */
  metadata: { name: string; resourceVersion?: string; [key: string]: unknown };
  /** The CRD spec. */
  spec: {
    group: string;
    names: { plural: string; kind: string; [key: string]: unknown };
    scope: string;
    versions: Array<{ name: string; served: boolean; storage: boolean; [key: string]: unknown }>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Where CRDs come from: an object, YAML text, or a file or directory of `.yaml`/`.yml`/`.json` files. */
export type CRDSource = CRDObject | { readonly yaml: string } | { readonly path: string };

/** Options for {@link installCRDs} and {@link uninstallCRDs}. */
export interface InstallCRDsOptions {
  /**
   * How long to wait: {@link installCRDs} for discovery to serve every version (default 60 s),
   * {@link uninstallCRDs} for every CRD to be gone (default 120 s). Generous, as a loaded machine
   * needs (envtest waits 10 s); a healthy apiserver finishes in well under a second.
   */
  readonly timeoutMs?: number;
  /** Aborts the wait. */
  readonly signal?: AbortSignal;
}

function parseYaml(text: string, origin: string): CRDObject[] {
  const out: CRDObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      throw new Error(`${origin}: invalid YAML at line ${e.linePos?.[0]?.line ?? '?'}: ${e.message}`);
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    out.push(value as CRDObject);
  }
  return out;
}

function readSource(source: CRDSource): CRDObject[] {
  if ('yaml' in source && typeof source.yaml === 'string') return parseYaml(source.yaml, 'CRD YAML');
  if ('path' in source && typeof source.path === 'string') {
    const p = source.path;
    const stat = statSync(p, { throwIfNoEntry: false });
    if (!stat) throw new Error(`CRD path ${p} does not exist`);
    if (stat.isDirectory()) {
      return readdirSync(p)
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .sort()
        .flatMap((f) => parseYaml(readFileSync(path.join(p, f), 'utf8'), path.join(p, f)));
    }
    return parseYaml(readFileSync(p, 'utf8'), p);
  }
  return [source as CRDObject];
}

function validate(crd: CRDObject, index: number): void {
  const where = `CRD #${index + 1}${crd?.metadata?.name ? ` (${crd.metadata.name})` : ''}`;
  if (crd?.kind !== 'CustomResourceDefinition' || crd.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw new Error(
      `${where} is a ${crd?.apiVersion ?? '?'}/${crd?.kind ?? '?'}, not an apiextensions.k8s.io/v1 CustomResourceDefinition`,
    );
  }
  if (!crd.spec?.group || !crd.spec?.names?.plural || !Array.isArray(crd.spec?.versions)) {
    throw new Error(`${where} lacks spec.group, spec.names.plural or spec.versions`);
  }
}

async function createOrReplace(kubeConfig: KubeConfig, crd: CRDObject): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (let attempt = 0; attempt < 10; attempt++) {
    const created = await request(kubeConfig, { method: 'POST', path: base, body: crd });
    if (created.status === 201 || created.status === 200) return;
    if (created.status !== 409) {
      throw new Error(`creating CRD ${crd.metadata.name} failed: ${describeFailure(created)}`);
    }
    const existing = await request(kubeConfig, { method: 'GET', path: `${base}/${crd.metadata.name}` });
    if (existing.status === 404) continue;
    if (existing.status !== 200)
      throw new Error(`reading CRD ${crd.metadata.name}: ${describeFailure(existing)}`);
    const rv = (existing.json as CRDObject).metadata.resourceVersion;
    const replaced = await request(kubeConfig, {
      method: 'PUT',
      path: `${base}/${crd.metadata.name}`,
      body: {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: rv },
      },
    });
    if (replaced.status === 200) return;
    if (replaced.status !== 409) {
      throw new Error(`updating CRD ${crd.metadata.name} failed: ${describeFailure(replaced)}`);
    }
  }
  throw new Error(`CRD ${crd.metadata.name}: gave up after 10 conflicts`);
}

async function served(
  kubeConfig: KubeConfig,
  { group, version, plural }: { group: string; version: string; plural: string },
): Promise<boolean> {
  const res = await request(kubeConfig, { method: 'GET', path: `/apis/${group}/${version}` });
  if (res.status !== 200) return false;
  const list = res.json as { resources?: Array<{ name: string }> };
  return (list.resources ?? []).some((r) => r.name === plural);
}

/**
 * Installs CustomResourceDefinitions (create, or replace when they exist) and resolves only when
 * discovery serves every served version of every CRD, as envtest does.
 *
 * @param kubeConfig - admin credentials, e.g. `plane.kubeConfig`.
 * @param sources - CRD objects, `{ yaml }` text (multi-document), or `{ path }` to a file or directory.
 * @returns the installed CRDs as the server stored them.
 * @throws when a document is not a v1 CRD, the apiserver rejects one (the message carries the
 *   apiserver's reason), or discovery does not serve them within the timeout.
 */
export async function installCRDs(
  kubeConfig: KubeConfig,
  sources: readonly CRDSource[],
  options: InstallCRDsOptions = {},
): Promise<CRDObject[]> {
  const crds = sources.flatMap(readSource);
  crds.forEach(validate);
  for (const crd of crds) await createOrReplace(kubeConfig, crd);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const pending = crds.flatMap((crd) =>
    crd.spec.versions.filter((v) => v.served).map((v) => ({ crd, version: v.name })),
  );
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    for (let i = pending.length - 1; i >= 0; i--) {
      const { crd, version } = pending[i]!;
      if (await served(kubeConfig, { group: crd.spec.group, version, plural: crd.spec.names.plural }))
        pending.splice(i, 1);
    }
    if (pending.length === 0) break;
    if (Date.now() > deadline) {
      const names = pending.map(
        ({ crd, version }) => `${crd.spec.names.plural}.${crd.spec.group}/${version}`,
      );
      throw new Error(`discovery did not serve ${names.join(', ')} within ${timeoutMs} ms`);
    }
    await sleep(100, undefined, options.signal ? { signal: options.signal } : {});
  }
  const out: CRDObject[] = [];
  for (const crd of crds) {
    const res = await request(kubeConfig, {
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
    });
    out.push(res.json as CRDObject);
  }
  return out;
}

/**
 * Deletes CRDs by name and waits until discovery no longer serves them. Unlike namespaces,
 * CRD deletion completes without a controller-manager (the apiextensions server finalizes it).
 */
export async function uninstallCRDs(
  kubeConfig: KubeConfig,
  names: readonly string[],
  options: InstallCRDsOptions = {},
): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (const name of names) {
    const res = await request(kubeConfig, { method: 'DELETE', path: `${base}/${name}` });
    if (res.status !== 200 && res.status !== 202 && res.status !== 404) {
      throw new Error(`deleting CRD ${name} failed: ${describeFailure(res)}`);
    }
  }
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      options.signal?.throwIfAborted();
      const res = await request(kubeConfig, { method: 'GET', path: `${base}/${name}` });
      if (res.status === 404) break;
      if (Date.now() > deadline)
        throw new Error(
          `CRD ${name} was not deleted within ${timeoutMs} ms (the apiserver deletes its custom resources first; pass a longer timeoutMs on a slow machine)`,
        );
      await sleep(100, undefined, options.signal ? { signal: options.signal } : {});
    }
  }
}
