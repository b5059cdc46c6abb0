import { afterAll, beforeAll, describe } from 'vitest';
import { applyTests } from './apply-tests.ts';
import { compactionTests } from './compaction-tests.ts';
import { crudTests } from './crud-tests.ts';
import { differencesTests } from './differences-tests.ts';
import { discoveryTests } from './discovery-tests.ts';
import { gadgetCrd, widgetCrd } from './fixtures.ts';
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
  list: listTests,
  watch: watchTests,
  subresources: subresourceTests,
  patch: patchTests,
  apply: applyTests,
  discovery: discoveryTests,
  compaction: compactionTests,
  differences: differencesTests,
};

/**
 * Defines the ApiClient conformance suite for one target: the same tests run against the fake
 * cluster (`conformance.test.ts`) and a real apiserver (`conformance.integration.test.ts`), so
 * every behaviour the fake claims is checked against Kubernetes. `setup` runs once, in
 * `beforeAll`; the suite installs its CRDs (`widgets` and `gadgets` in
 * `conformance.kubeloom.dev`) before the tests.
 */
export function describeApiConformance(
  name: string,
  setup: () => Promise<ConformanceTarget> | ConformanceTarget,
  options: ConformanceOptions = {},
): void {
  let target: ConformanceTarget | undefined;
  const ctx: ConformanceContext = {
    get target() {
      if (!target) throw new Error('conformance target not set up (beforeAll failed?)');
      return target;
    },
  };
  describe(`ApiClient conformance: ${name}`, () => {
    beforeAll(async () => {
      target = await setup();
      await target.installCrd(widgetCrd);
      await target.installCrd(gadgetCrd);
    });
    afterAll(async () => {
      await target?.dispose?.();
    });
    const groups =
      options.groups ?? (Object.keys(GROUPS) as ConformanceGroup[]).filter((g) => g !== 'compaction');
    for (const g of groups) describe(g, () => GROUPS[g](ctx));
  });
}
