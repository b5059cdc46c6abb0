import { builtins, InvalidError, type KubeObject } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
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
import { type RealHarness, realKube } from '../test/real-harness.ts';
import { newNamespace } from '../test/scenarios.ts';
import { createClient } from './create-client.ts';

const harnesses: RealHarness[] = [];
function harness(): RealHarness {
  const h = realKube();
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('Client on the real API server', () => {
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
  ] as const) {
    it(title, async () => {
      const { kube, stop } = harness();
      await scenario(kube, stop.signal);
    });
  }

  it('every field cause of an invalid object reaches the caller (data keys are validated by the apiserver only)', async () => {
    const { kube } = harness();
    const ns = await newNamespace(kube);
    const invalid = await createClient(kube, builtins.ConfigMap)
      .create({ metadata: { name: 'Bad_Name', namespace: ns }, data: { 'bad key!': 'x' } })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidError);
    const fields = (invalid as InvalidError).causes.map((c) => c.field);
    expect(fields).toContain('metadata.name');
    expect(fields).toContain('data[bad key!]');
  });
});

describe('every Reader, Writer and Informer method, on the real API server', () => {
  for (const kind of [configMapKind, deploymentKind, widgetKind] as KindUnderTest<KubeObject>[]) {
    it(kind.name, async () => {
      const { kube, stop } = harness();
      await everyMethodScenario(kube, stop.signal, kind);
    });
  }
});
