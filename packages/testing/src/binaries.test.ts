import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBinary, goPlatform, kubeloomAssetsDirectory } from './binaries.ts';
import { ETCD_VERSION, KUBERNETES_VERSION } from './versions.ts';

/** Pretends this process runs on another OS and architecture, until the test ends. */
function pretendHost(platform: string, arch: string): void {
  const saved = ['platform', 'arch'].map(
    (key) => [key, Object.getOwnPropertyDescriptor(process, key)!] as const,
  );
  Object.defineProperty(process, 'platform', { value: platform, configurable: true });
  Object.defineProperty(process, 'arch', { value: arch, configurable: true });
  restore.push(() => {
    for (const [key, descriptor] of saved) Object.defineProperty(process, key, descriptor);
  });
}
const restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.splice(0).reverse()) undo();
});

describe('goPlatform', () => {
  it.each([
    ['linux', 'x64', 'linux-amd64'],
    ['linux', 'arm64', 'linux-arm64'],
    ['darwin', 'arm64', 'darwin-arm64'],
    ['darwin', 'x64', 'darwin-amd64'],
    ['win32', 'x64', 'windows-amd64'],
    ['win32', 'ia32', 'windows-386'],
    ['linux', 'ppc64', 'linux-ppc64le'],
    ['aix', 'ppc64', 'aix-ppc64'],
    ['linux', 's390x', 'linux-s390x'],
    ['linux', 'mipsel', 'linux-mipsle'],
    ['sunos', 'x64', 'solaris-amd64'],
    ['freebsd', 'riscv64', 'freebsd-riscv64'],
  ])("maps Node's %s/%s to Go's %s", (platform, arch, expected) => {
    expect(goPlatform(platform, arch)).toBe(expected);
  });

  it("defaults to this machine's platform and architecture", () => {
    pretendHost('darwin', 'arm64');
    expect(goPlatform()).toBe('darwin-arm64');
  });
});

describe('binary locations for the real OS/arch', () => {
  it("kubeloom's cache directory is named for this machine", () => {
    pretendHost('darwin', 'arm64');
    expect(kubeloomAssetsDirectory({ XDG_CACHE_HOME: '/c' })).toBe(
      path.join(
        '/c',
        'kubeloom',
        'kubebuilder-assets',
        `${KUBERNETES_VERSION}-etcd${ETCD_VERSION}-darwin-arm64`,
      ),
    );
  });

  it("the setup-envtest store is searched for this machine's binaries only", () => {
    const data = mkdtempSync(path.join(tmpdir(), 'kubeloom-envtest-'));
    try {
      const store = path.join(data, 'kubebuilder-envtest', 'k8s');
      for (const dir of ['1.36.0-linux-amd64', '1.35.0-darwin-arm64']) {
        mkdirSync(path.join(store, dir), { recursive: true });
        for (const b of ['kube-apiserver', 'etcd']) {
          writeFileSync(path.join(store, dir, b), '#!/bin/sh\n', { mode: 0o755 });
        }
      }
      const env = { HOME: '/nonexistent-home', XDG_CACHE_HOME: '/nonexistent-cache', XDG_DATA_HOME: data };
      pretendHost('darwin', 'arm64');
      expect(findBinary('etcd', { env })).toBe(path.join(store, '1.35.0-darwin-arm64', 'etcd'));
      pretendHost('linux', 'arm64');
      expect(() => findBinary('etcd', { env })).toThrow(/<version>-linux-arm64\/etcd/);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('missing binaries', () => {
  it('point to the package command, not to a script of the kubeloom repository', () => {
    const env = {
      HOME: '/nonexistent-home',
      XDG_CACHE_HOME: '/nonexistent-cache',
      XDG_DATA_HOME: '/nonexistent',
    };
    expect(() => findBinary('kube-apiserver', { env })).toThrow(/run `npx kubeloom-testing assets`/);
    expect(() => findBinary('etcd', { env: { TEST_ASSET_ETCD: '/nonexistent/etcd' } })).toThrow(
      /which does not exist\. Fix or unset it, or run `npx kubeloom-testing assets`/,
    );
    expect(() => findBinary('etcd', { env })).toThrow(
      expect.objectContaining({ message: expect.not.stringMatching(/pnpm|control-plane:assets|tools\//) }),
    );
  });
});
