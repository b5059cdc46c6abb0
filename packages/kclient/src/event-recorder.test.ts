import { builtins, defineResource, type KubeObject } from '@kubeloom/kube';
import type { FakeKubeClient } from '@kubeloom/kube/fake';
import { recordingLogger } from '@kubeloom/kube/fake';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createEventRecorder } from './create-event-recorder.ts';
import type { EventRecorderOptions } from './event-recorder.ts';

afterEach(closeFakes);

const cm: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c1', namespace: 'ns', uid: 'uid-1', resourceVersion: '7' },
};

interface StoredEvent extends KubeObject {
  involvedObject: Record<string, unknown>;
  reason: string;
  message: string;
  type: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: Record<string, unknown>;
  reportingComponent: string;
  reportingInstance: string;
}

function setup(options: Partial<EventRecorderOptions> = {}) {
  const { kube } = fakeKube();
  const logger = recordingLogger();
  let now = Date.parse('2030-01-01T00:00:00Z');
  const recorder = createEventRecorder(kube, {
    component: 'test-ctrl',
    host: 'node-1',
    logger,
    now: () => new Date(now),
    retryDelayMs: 1,
    ...options,
  });
  return {
    kube,
    logger,
    recorder,
    advance: (ms: number) => {
      now += ms;
    },
    events: (namespace = 'ns') => listEvents(kube, namespace),
  };
}

/** The order of creation: names end in a timestamp made unique per recorder. */
/** The Event resource, typed as the recorder's JSON. */
const StoredEvents = defineResource<StoredEvent>(builtins.Event);

const createdAt = (e: StoredEvent): bigint => BigInt(`0x${e.metadata?.name?.split('.').at(-1) ?? '0'}`);

function listEvents(kube: FakeKubeClient, namespace: string): StoredEvent[] {
  return kube.cluster
    .listObjects(StoredEvents, namespace)
    .sort((a, b) => (createdAt(a) < createdAt(b) ? -1 : 1));
}

describe('EventRecorder', () => {
  it('writes a core/v1 Event in the background: write() returns at once and does no I/O', async () => {
    const { kube, recorder, events } = setup();
    expect(recorder.write(cm, { type: 'Normal', reason: 'Synced', message: 'synced ok' })).toBeUndefined();
    expect(kube.cluster.requestCount('create')).toBe(0);
    await recorder.flush();
    const [e, ...rest] = events();
    expect(rest).toEqual([]);
    expect(e).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'ns' },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'c1',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: '7',
      },
      reason: 'Synced',
      message: 'synced ok',
      type: 'Normal',
      count: 1,
      source: { component: 'test-ctrl', host: 'node-1' },
      reportingComponent: 'test-ctrl',
      reportingInstance: 'node-1',
      firstTimestamp: '2030-01-01T00:00:00Z',
      lastTimestamp: '2030-01-01T00:00:00Z',
    });
    expect(e?.metadata?.name).toMatch(/^c1\.[0-9a-f]+$/);
  });

  it('deduplicates equal events into one with a count', async () => {
    const { kube, recorder, advance, events } = setup();
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'boom' });
    advance(1000);
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'boom' });
    advance(1000);
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'boom' });
    recorder.write(cm, { type: 'Warning', reason: 'Failed', message: 'other message' });
    recorder.write(cm, { type: 'Normal', reason: 'Failed', message: 'boom' });
    await recorder.flush();
    const all = events();
    expect(all.map((e) => [e.type, e.message, e.count])).toEqual([
      ['Warning', 'boom', 3],
      ['Warning', 'other message', 1],
      ['Normal', 'boom', 1],
    ]);
    expect(all[0]).toMatchObject({
      firstTimestamp: '2030-01-01T00:00:00Z',
      lastTimestamp: '2030-01-01T00:00:02Z',
    });
    expect(kube.cluster.requestCount('create')).toBe(3);
    expect(kube.cluster.requestCount('patch')).toBe(2);
  });

  it('aggregates many distinct messages with the same reason', async () => {
    const { recorder, events } = setup();
    for (let i = 1; i <= 11; i++)
      recorder.write(cm, { type: 'Normal', reason: 'Progress', message: `step ${i}` });
    await recorder.flush();
    const all = events();
    expect(all).toHaveLength(10);
    expect(all.slice(0, 9).map((e) => [e.message, e.count])).toEqual(
      Array.from({ length: 9 }, (_, i) => [`step ${i + 1}`, 1]),
    );
    expect(all[9]).toMatchObject({ message: '(combined from similar events): step 11', count: 2 });
  });

  it('a spam filter per object drops bursts, and refills over time', async () => {
    const { recorder, advance, events } = setup({ spamBurst: 3, spamRefillIntervalMs: 60_000 });
    for (const reason of ['A', 'B', 'C', 'D']) recorder.write(cm, { type: 'Normal', reason, message: 'm' });
    recorder.write(
      { ...cm, metadata: { ...cm.metadata, name: 'c2' } },
      { type: 'Normal', reason: 'A', message: 'm' },
    ); // another object
    await recorder.flush();
    expect(events().map((e) => `${e.involvedObject.name}/${e.reason}`)).toEqual([
      'c1/A',
      'c1/B',
      'c1/C',
      'c2/A',
    ]);
    advance(60_000);
    recorder.write(cm, { type: 'Normal', reason: 'E', message: 'm' });
    recorder.write(cm, { type: 'Normal', reason: 'F', message: 'm' });
    await recorder.flush();
    expect(events().map((e) => e.reason)).toEqual(['A', 'B', 'C', 'A', 'E']);
  });

  it('records events about cluster-scoped objects in the default namespace', async () => {
    const { recorder, events } = setup();
    recorder.write(
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } },
      { type: 'Normal', reason: 'Seen', message: 'hello' },
    );
    await recorder.flush();
    const [e] = events('default');
    expect(e?.involvedObject).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'n1' });
  });

  it('logs failures instead of throwing; retries transient ones', async () => {
    const { kube, recorder, logger } = setup({ maxAttempts: 3 });
    const clear = kube.cluster.failAlways('create', { resource: builtins.Event, code: 403 });
    expect(() => recorder.write(cm, { type: 'Normal', reason: 'Denied', message: 'x' })).not.toThrow();
    await recorder.flush();
    expect(kube.cluster.requestCount('create', builtins.Event)).toBe(1); // not retriable
    clear();
    kube.cluster.failAlways('create', { resource: builtins.Event, code: 503 });
    recorder.write(cm, { type: 'Normal', reason: 'Unavailable', message: 'x' });
    await recorder.flush();
    expect(kube.cluster.requestCount('create', builtins.Event)).toBe(1 + 3);
    const errors = logger.records.filter((r) => r.level === 'error');
    expect(errors.map((r) => [r.message, r.fields.reason, r.fields.attempts])).toEqual([
      ['could not write event; dropping it', 'Denied', 1],
      ['could not write event; dropping it', 'Unavailable', 3],
    ]);
    kube.cluster.clearFailures();
    recorder.write(cm, { type: 'Normal', reason: 'Recovered', message: 'x' });
    await recorder.flush();
    expect(listEvents(kube, 'ns').map((e) => e.reason)).toEqual(['Recovered']);
  });

  it('creates a deduplicated Event again when it was deleted, keeping the count', async () => {
    const { kube, recorder, events } = setup();
    recorder.write(cm, { type: 'Normal', reason: 'Again', message: 'm' });
    await recorder.flush();
    await kube.api.delete({ resource: builtins.Event, name: events()[0]!.metadata!.name!, namespace: 'ns' });
    recorder.write(cm, { type: 'Normal', reason: 'Again', message: 'm' });
    await recorder.flush();
    expect(events().map((e) => [e.reason, e.count])).toEqual([['Again', 2]]);
  });

  it('drops events beyond maxQueued, and invalid ones, with a log record', async () => {
    const { kube, recorder, logger, events } = setup({ maxQueued: 2 });
    for (const reason of ['A', 'B', 'C', 'D', 'E'])
      recorder.write(cm, { type: 'Normal', reason, message: 'm' });
    recorder.write(
      { metadata: { name: 'no-kind', namespace: 'ns' } },
      { type: 'Normal', reason: 'X', message: 'm' },
    );
    recorder.write(cm, { type: 'Bogus' as never, reason: 'X', message: 'm' });
    await recorder.flush();
    expect(events().map((e) => e.reason)).toEqual(['A', 'B']);
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(3);
    expect(logger.records.filter((r) => r.level === 'error').map((r) => r.message)).toEqual([
      'event dropped: the object needs apiVersion, kind and metadata.name',
      'event dropped: unsupported event type',
    ]);
    expect(kube.cluster.requestCount('create')).toBe(2);
  });

  it('await using writes what is queued, then drops', async () => {
    const { kube, events } = setup();
    let escaped: ReturnType<typeof createEventRecorder> | undefined;
    {
      await using recorder = createEventRecorder(kube, { component: 'c' });
      recorder.write(cm, { type: 'Warning', reason: 'Queued', message: 'm' });
      escaped = recorder;
    }
    expect(events().map((e) => e.reason)).toEqual(['Queued']);
    escaped.write(cm, { type: 'Normal', reason: 'After', message: 'm' });
    await escaped.flush();
    expect(events().map((e) => e.reason)).toEqual(['Queued']);
  });

  it('shutdown() writes what is queued, then drops; aborting the signal drops what is queued', async () => {
    const { kube, recorder, events } = setup();
    recorder.write(cm, { type: 'Normal', reason: 'Before', message: 'm' });
    await recorder.shutdown();
    recorder.write(cm, { type: 'Normal', reason: 'After', message: 'm' });
    await recorder.flush();
    expect(events().map((e) => e.reason)).toEqual(['Before']);

    const stop = new AbortController();
    const aborted = createEventRecorder(kube, { component: 'c', signal: stop.signal });
    aborted.write(cm, { type: 'Normal', reason: 'Dropped', message: 'm' });
    stop.abort();
    await aborted.flush();
    expect(events().map((e) => e.reason)).toEqual(['Before']);
    expect(() => createEventRecorder(kube, { component: '' })).toThrow(/component is required/);
  });
});
