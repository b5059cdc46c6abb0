import { afterAll, beforeAll, describe } from 'vitest';
import { admissionTests } from './admission-tests.ts';
import { applyTests } from './apply-tests.ts';
import { compactionTests } from './compaction-tests.ts';
import { crdTests } from './crd-tests.ts';
import { crudTests } from './crud-tests.ts';
import { differencesTests } from './differences-tests.ts';
import { discoveryTests } from './discovery-tests.ts';
import { createFixtures, uniqueGroup } from './fixtures.ts';
import { listTests } from './list-tests.ts';
import { patchTests } from './patch-tests.ts';
import { subresourceTests } from './subresource-tests.ts';
import type {
  ConformanceContext,
  ConformanceGroup,
  ConformanceOptions,
  ConformanceTarget,
} from './target.ts';
import { watchTests } from './watch-tests.ts';

const GROUPS: Record<ConformanceGroup, (ctx: ConformanceContext) => void> = {
  crud: crudTests,
  admission: admissionTests,
  list: listTests,
  watch: watchTests,
  subresources: subresourceTests,
  patch: patchTests,
  apply: applyTests,
  discovery: discoveryTests,
  crds: crdTests,
  compaction: compactionTests,
  differences: differencesTests,
};

/** Wraps a target so that the CRDs installed through it are known, to uninstall what is left. */
function tracking(target: ConformanceTarget, installed: Set<string>): ConformanceTarget {
  return {
    ...target,
    async installCrd(crd) {
      const name = String(crd.metadata?.name);
      installed.add(name);
      await target.installCrd(crd);
    },
    async uninstallCrd(name) {
      await target.uninstallCrd(name);
      installed.delete(name);
    },
  };
}

/**
 * Defines the ApiClient conformance suite for one target: the same tests run against the fake
 * cluster (`conformance.test.ts`) and a real apiserver (`conformance.integration.test.ts`), so
 * every behaviour the fake claims is checked against Kubernetes. `setup` runs once, in
 * `beforeAll`. Each suite uses an API group of its own (`<random>.conformance.kubeloom.dev`), so
 * suites sharing a control plane never collide; it installs its `widgets` and `gadgets` CRDs
 * before the tests and uninstalls every CRD it installed after them.
 */
export function describeApiConformance(
  name: string,
  setup: () => Promise<ConformanceTarget> | ConformanceTarget,
  options: ConformanceOptions = {},
): void {
  let target: ConformanceTarget | undefined;
  const installed = new Set<string>();
  const fx = createFixtures(uniqueGroup());
  const ctx: ConformanceContext = {
    get target() {
      if (!target) throw new Error('conformance target not set up (beforeAll failed?)');
      return target;
    },
    fx,
  };
  describe(`ApiClient conformance: ${name}`, () => {
    beforeAll(async () => {
      target = tracking(await setup(), installed);
      await target.installCrd(fx.widgetCrd);
      await target.installCrd(fx.gadgetCrd);
    });
    afterAll(async () => {
      try {
        for (const crd of [...installed]) await target?.uninstallCrd(crd);
      } finally {
        await target?.dispose?.();
      }
    });
    const groups =
      options.groups ?? (Object.keys(GROUPS) as ConformanceGroup[]).filter((g) => g !== 'compaction');
    for (const g of groups) describe(g, () => GROUPS[g](ctx));
  });
}
