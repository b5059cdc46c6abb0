/**
 * The `@example`s of the API docs, compiled and run: each function's doc comment includes its
 * region with `{@includeCode ./doc-examples.test.ts#name}`. Static collections and the fake
 * cluster stand in for real inputs; the same code runs against any `KubeClient`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { collection } from './collection.ts';
import { index, namespaceIndex } from './collection-index.ts';
import type { Event } from './core.ts';
import { createDebugHandler } from './debug.ts';
import { deepEqual, equal } from './equality.ts';
import { items, latest } from './event.ts';
import { fetch, fetchOne, fetchOrList } from './fetch.ts';
import { fileCollection, parseYamlDocuments } from './files.ts';
import { filter } from './filter.ts';
import { informer } from './informer.ts';
import { joinCollection, joinWithMerge } from './join.ts';
import { getKey, named, tryGetKey } from './keys.ts';
import { getLabelSelector, getLabels, isSubset, selectsNonEmpty } from './labels.ts';
import { manyCollection } from './many-collection.ts';
import { mapCollection } from './map.ts';
import { nestedJoin } from './nested-join.ts';
import { optionsBuilder } from './options.ts';
import { recomputeProtected, recomputeTrigger } from './recompute-trigger.ts';
import { manyFromNothing, singleton, staticSingleton } from './singleton.ts';
import { staticCollection } from './static.ts';
import { statusCollection, statusManyCollection } from './status.ts';
import { applyStatusWrite, startStatusWriter } from './status-writer.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

interface Person {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels?: Record<string, string>;
  };
  readonly team: string;
}
interface Team {
  readonly metadata: { readonly name: string };
}
const person = (name: string, team: string): Person => ({ metadata: { name, namespace: 'org' }, team });

describe('@kubeloom/krt API doc examples', () => {
  it('static collections, derived collections, indexes and fetches', async () => {
    const signal = stop.signal;
    // #region staticCollection
    // A collection set by hand: configuration, test inputs, anything not in the cluster.
    const people = staticCollection<Person>([person('ann', 'web'), person('bob', 'db')], {
      signal,
      name: 'people',
    });
    people.update(person('cid', 'web')); // add or replace by key (`org/cid`)
    people.delete('org/bob');
    // #endregion staticCollection
    // #region collection
    // One output per input (or none): here each person's greeting, recomputed when the person changes.
    const greetings = collection(people, (_ctx, p) => `hello ${p.metadata.name}`, {
      signal,
      name: 'greetings',
    });
    await greetings.waitUntilSynced(signal);
    greetings.list(); // ['hello ann', 'hello cid'] (in no particular order)
    // #endregion collection
    expect(greetings.list().sort()).toEqual(['hello ann', 'hello cid']);
    // #region mapCollection
    // A 1:1 map that keeps keys: no dependencies, no output filtering.
    const teams = mapCollection(people, (p) => ({ ...p, team: p.team.toUpperCase() }), {
      signal,
      name: 'teams',
    });
    // #endregion mapCollection
    // #region manyCollection
    // Any number of outputs per input: here two facts per person, keyed by the strings themselves.
    const initials = manyCollection(
      people,
      (_ctx, p) => [`${p.metadata.name} is in ${p.team}`, `${p.metadata.name} exists`],
      {
        signal,
        name: 'facts',
      },
    );
    // #endregion manyCollection
    // #region index
    // A secondary index: lookup reads it, fetch reads it from a transformation and records a dependency.
    const byTeam = index(people, 'team', (p) => [p.team]);
    const teamSizes = collection(
      staticCollection(['web', 'db'], { signal, name: 'team-names' }),
      (ctx, team) => `${team}=${byTeam.fetch(ctx, team).length}`,
      { signal, name: 'team-sizes' },
    );
    byTeam.lookup('web'); // ann and cid, no dependency recorded
    // #endregion index
    // #region namespaceIndex
    // The index by namespace that fetch uses to scope label and selector filters.
    const byNamespace = namespaceIndex(people);
    byNamespace.lookup('org'); // every person in namespace org
    // #endregion namespaceIndex
    // #region fetch
    // fetch reads a collection inside a transformation and records the dependency: when a person
    // of the team changes, only the teams that fetched them are recomputed.
    const rosters = collection(
      staticCollection(['web'], { signal, name: 'rosters-in' }),
      (ctx, team) => ({
        team,
        members: fetch(
          ctx,
          people,
          filter.generic((p) => (p as Person).team === team),
        )
          .map((p) => p.metadata.name)
          .sort(),
        resourceName: () => team,
      }),
      { signal, name: 'rosters' },
    );
    // #endregion fetch
    // #region fetchOne
    // At most one match: undefined when none (a MultipleResultsError when several match).
    const lead = singleton((ctx) => fetchOne(ctx, people, filter.key('org/ann'))?.team, {
      signal,
      name: 'lead-team',
    });
    // #endregion fetchOne
    // #region fetchOrList
    // Inside a transformation: fetch (with a dependency); outside one (ctx undefined): list.
    const everyone = (ctx?: Parameters<typeof fetch>[0]) => fetchOrList(ctx, people).length;
    everyone(); // 2, read without a dependency
    // #endregion fetchOrList
    // #region filter
    // Fetch options, combined with AND: by key, by labels, by a selector, by an index, by a predicate.
    const webPeople = singleton(
      (ctx) =>
        fetch(
          ctx,
          people,
          filter.index(byTeam, 'web'),
          filter.generic((p) => (p as Person).metadata.name !== 'x'),
        ).length,
      { signal, name: 'web-count' },
    );
    // #endregion filter
    await waitFor('the derived collections', () => rosters.get('web')?.members.join() === 'ann,cid');
    await waitFor('the singletons', () => lead.get() === 'web' && webPeople.get() === 2);
    await waitFor('team sizes', () => teamSizes.list().sort().join() === 'db=0,web=2');
    expect(teams.get('org/ann')?.team).toBe('WEB');
    await waitFor('facts', () => initials.list().length === 4);
    expect(byTeam.lookup('web').length).toBe(2);
    expect(byNamespace.lookup('org').length).toBe(2);
    expect(everyone()).toBe(2);
  });

  it('singletons, joins and triggers', async () => {
    const signal = stop.signal;
    // #region staticSingleton
    // One value set by hand, e.g. a configuration flag; dependants recompute when it changes.
    const mode = staticSingleton<string>('strict', { signal, name: 'mode' });
    mode.set('relaxed');
    // #endregion staticSingleton
    // #region singleton
    // One derived value: recomputed when anything it fetched changes.
    const banner = singleton((ctx) => `mode: ${fetchOne(ctx, mode.asCollection())}`, {
      signal,
      name: 'banner',
    });
    // #endregion singleton
    await waitFor('the banner', () => banner.get() === 'mode: relaxed');
    const a = staticCollection([person('ann', 'web')], { signal, name: 'a' });
    const b = staticCollection([person('ann', 'db'), person('bob', 'db')], { signal, name: 'b' });
    // #region joinCollection
    // The union of collections of one type; on a key present in several, the first collection wins.
    const joined = joinCollection([a, b], { signal, name: 'everyone' });
    // #endregion joinCollection
    // #region joinWithMerge
    // The union, merging the objects that share a key.
    const merged = joinWithMerge(
      [a, b],
      (objs) => ({ ...objs[0]!, team: objs.map((p) => p.team).join('+') }),
      {
        signal,
        name: 'merged',
      },
    );
    // #endregion joinWithMerge
    // #region nestedJoin
    // The union of a changing set of collections (a collection of collections).
    const sources = staticCollection([a, b], { signal, name: 'sources' });
    const all = nestedJoin(sources, { signal, name: 'all' });
    // #endregion nestedJoin
    // #region manyFromNothing
    // Many outputs from no input: what the transformation fetches is what it depends on.
    const names = manyFromNothing((ctx) => fetch(ctx, a).map((p) => p.metadata.name), {
      signal,
      name: 'names',
    });
    // #endregion manyFromNothing
    await waitFor('the joins', () => joined.list().length === 2 && merged.get('org/ann')?.team === 'web+db');
    await waitFor(
      'the nested join and names',
      () => all.list().length === 2 && names.list().join() === 'ann',
    );
    expect(joined.get('org/ann')?.team).toBe('web');

    // #region recomputeTrigger
    // Recompute dependants on an outside signal (a file watch, a timer) that no collection carries.
    const trigger = recomputeTrigger({ signal, name: 'clock', synced: true });
    let now = 1;
    const reading = singleton(
      (ctx) => {
        trigger.markDependant(ctx);
        return now;
      },
      { signal, name: 'reading' },
    );
    now = 2;
    trigger.trigger(); // reading recomputes: 2
    // #endregion recomputeTrigger
    await waitFor('the trigger', () => reading.get() === 2);
    // #region recomputeProtected
    // Mutable data that dependants must not read without recording the dependency.
    const limits = recomputeProtected({ max: 3 }, { signal, name: 'limits', synced: true });
    const max = singleton((ctx) => limits.get(ctx).max, { signal, name: 'max' });
    limits.modify((l) => ({ ...l, max: 5 })); // max recomputes: 5
    // #endregion recomputeProtected
    await waitFor('the protected value', () => max.get() === 5);
  });

  it('statuses, debug, options, files', async () => {
    const signal = stop.signal;
    const people = staticCollection<Person>([person('ann', 'web')], { signal, name: 'people' });
    // #region statusCollection
    // A transformation that returns [status, output]: the status goes to a status writer.
    const { status, outputs } = statusCollection(people, (_ctx, p) => [{ ready: p.team !== '' }, p.team], {
      signal,
      name: 'people-status',
    });
    // #endregion statusCollection
    // #region statusManyCollection
    // The same with any number of outputs per input.
    const many = statusManyCollection(people, (_ctx, p) => [{ members: 1 }, [p.team, p.metadata.name]], {
      signal,
      name: 'people-many',
    });
    // #endregion statusManyCollection
    await waitFor(
      'statuses',
      () => status.get('org/ann')?.status.ready === true && outputs.list().join() === 'web',
    );
    await waitFor('many outputs', () => many.outputs.list().length === 2);
    // #region startStatusWriter
    // Writes each desired status (running when the call returns; the signal stops it).
    const written: string[] = [];
    const writer = startStatusWriter(status, {
      signal,
      logger: noopLogger,
      write: async (obj, s) => {
        written.push(`${obj.metadata.name} ready=${s?.ready}`); // e.g. applyStatusWrite(kube, resource, fieldManager)
      },
    });
    // #endregion startStatusWriter
    await waitFor('the write', () => written.join() === 'ann ready=true');
    await writer[Symbol.asyncDispose]();

    // #region createDebugHandler
    // A dump of every collection registered with it (name, synced, size, dependencies), also over HTTP.
    const debug = createDebugHandler();
    const greeted = collection(people, (_ctx, p) => p.metadata.name, { signal, name: 'greeted', debug });
    // http.createServer(debug.httpHandler) serves the same dump as JSON
    // #endregion createDebugHandler
    await greeted.waitUntilSynced(signal);
    expect(debug.dump().map((e) => e.name)).toContain('greeted');
    // #region optionsBuilder
    // Collection options with a shared signal, name prefix and debug handler.
    const opts = optionsBuilder({ signal, prefix: 'billing', debug });
    const invoices = staticCollection<string>([], opts.named('invoices')); // named 'billing/invoices'
    // #endregion optionsBuilder
    expect(invoices.name).toMatch(/invoices/);

    const dir = mkdtempSync(path.join(tmpdir(), 'krt-doc-'));
    try {
      writeFileSync(path.join(dir, 'teams.yaml'), 'metadata: { name: web }\n---\nmetadata: { name: db }\n');
      // #region fileCollection
      // A collection over a directory of YAML files, re-read (and diffed) when they change.
      const teamFiles = fileCollection<Team>(dir, {
        signal,
        name: 'team-files',
        parse: (content) => parseYamlDocuments<Team>(content), // objects keyed by metadata.name
      });
      // #endregion fileCollection
      expect(
        teamFiles
          .list()
          .map((t) => t.metadata.name)
          .sort(),
      ).toEqual(['db', 'web']);
    } finally {
      stop.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the fake cluster: informer and applyStatusWrite', async () => {
    const signal = stop.signal;
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop' },
      data: { mode: 'on' },
    });
    // #region informer
    // A collection over the KubeClient's shared informer; kube.runAndWait starts it.
    const configMaps = informer(kube, builtins.ConfigMap, {
      signal,
      name: 'configmaps',
      filter: { namespace: 'shop' },
    });
    await kube.runAndWait(signal);
    configMaps.get('shop/settings')?.data; // { mode: 'on' }
    // #endregion informer
    await configMaps.waitUntilSynced(signal);
    expect(configMaps.get('shop/settings')?.data).toEqual({ mode: 'on' });
    // #region applyStatusWrite
    // A StatusWrite for startStatusWriter: server-side apply of the status subresource.
    const writePodStatus = applyStatusWrite<V1Pod, { podIP: string }>(kube, builtins.Pod, 'my-controller');
    // startStatusWriter(statuses, { signal, write: writePodStatus })
    // #endregion applyStatusWrite
    expect(typeof writePodStatus).toBe('function');
  });

  it('keys, labels, events and equality', () => {
    const cm: V1ConfigMap = { metadata: { name: 'settings', namespace: 'shop', labels: { app: 'web' } } };
    // #region getKey
    getKey(cm); // 'shop/settings': namespace/name, a resourceName() result, or a string itself
    // #endregion getKey
    // #region tryGetKey
    tryGetKey({}); // undefined where getKey throws a MissingKeyError
    // #endregion tryGetKey
    // #region named
    named('shop', 'settings').resourceName(); // 'shop/settings': a key-only object, e.g. for outputs
    // #endregion named
    // #region getLabels
    getLabels(cm); // { app: 'web' } (metadata.labels, or a labels() method)
    // #endregion getLabels
    // #region getLabelSelector
    getLabelSelector({ spec: { selector: { app: 'web' } } }); // { app: 'web' }
    // #endregion getLabelSelector
    // #region isSubset
    isSubset({ app: 'web' }, { app: 'web', tier: 'front' }); // true
    // #endregion isSubset
    // #region selectsNonEmpty
    selectsNonEmpty({}, { app: 'web' }); // false: an empty selector selects nothing here
    // #endregion selectsNonEmpty
    const e: Event<string> = { type: 'update', old: 'a', new: 'b' };
    // #region items
    items(e); // ['a', 'b']: the old and the new object, whichever are set
    // #endregion items
    // #region latest
    latest(e); // 'b': the new object, or the old one for a delete
    // #endregion latest
    // #region equal
    equal({ a: [1] }, { a: [1] }); // true: an equals() method when there is one, else deep equality
    // #endregion equal
    // #region deepEqual
    deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }); // true
    // #endregion deepEqual
    expect([getKey(cm), tryGetKey({}), named('shop', 'settings').resourceName()]).toEqual([
      'shop/settings',
      undefined,
      'shop/settings',
    ]);
    expect(getLabels(cm)).toEqual({ app: 'web' });
    expect(getLabelSelector({ spec: { selector: { app: 'web' } } })).toEqual({ app: 'web' });
    expect([
      isSubset({ app: 'web' }, { app: 'web', tier: 'front' }),
      selectsNonEmpty({}, { app: 'web' }),
    ]).toEqual([true, false]);
    expect([items(e), latest(e)]).toEqual([['a', 'b'], 'b']);
    expect([equal({ a: [1] }, { a: [1] }), deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })]).toEqual([
      true,
      true,
    ]);
  });
});
