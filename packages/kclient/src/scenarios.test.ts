import type { KubeObject } from '@kubeloom/kube';
import { afterEach, describe, it } from 'vitest';
import {
  configMapKind,
  deploymentKind,
  everyMethodScenario,
  type KindUnderTest,
  widgetKind,
} from '../test/client-methods.ts';
import {
  badInputScenario,
  configMapScenario,
  customKindScenario,
  deploymentScenario,
  writeHelpersScenario,
} from '../test/client-scenarios.ts';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import {
  delayedClientPresentScenario,
  delayedClientScenario,
  dynamicFilterScenario,
  slowHandlerScenario,
} from '../test/scenarios.ts';

afterEach(closeFakes);

describe('scenarios on the fake cluster', () => {
  for (const [title, scenario] of [
    ['ConfigMap: every Reader, Writer and Informer method', configMapScenario],
    ['createOrUpdate, write client and direct client', writeHelpersScenario],
    ['Deployment: status writes, strategic merge on containers, server-side apply', deploymentScenario],
    [
      'a custom kind: CRUD, applyStatus, strategic patch refused, untyped and metadata clients',
      customKindScenario,
    ],
    [
      'bad input: invalid objects carry the field causes, patches on missing objects are NotFound',
      badInputScenario,
    ],
    [
      'delayed client: before the CRD, install, handlers and index, delete and reinstall',
      delayedClientScenario,
    ],
    ['delayed client on a CRD that is already served', delayedClientPresentScenario],
    ['dynamic namespace-selector filter: relabel in and out, selector change', dynamicFilterScenario],
    ['hasSynced waits for slow and late handlers', slowHandlerScenario],
  ] as const) {
    it(title, async () => {
      const { kube, stop } = fakeKube();
      await scenario(kube, stop.signal);
    });
  }
});

describe('every Reader, Writer and Informer method, on the fake cluster', () => {
  for (const kind of [configMapKind, deploymentKind, widgetKind] as KindUnderTest<KubeObject>[]) {
    it(kind.name, async () => {
      const { kube, stop } = fakeKube();
      await everyMethodScenario(kube, stop.signal, kind);
    });
  }
});
