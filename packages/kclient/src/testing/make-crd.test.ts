import { describe, expect, it } from 'vitest';
import { singularOf } from './make-crd.ts';

describe('singularOf', () => {
  it.each([
    ['caches', 'cache'],
    ['sizes', 'size'],
    ['horses', 'horse'],
    ['widgets', 'widget'],
    ['gateways', 'gateway'],
    ['policies', 'policy'],
    ['proxies', 'proxy'],
    ['classes', 'class'],
    ['ingresses', 'ingress'],
    ['addresses', 'address'],
    ['boxes', 'box'],
    ['indexes', 'index'],
    ['meshes', 'mesh'],
    ['patches', 'patch'],
    ['matches', 'match'],
    ['benches', 'bench'],
    ['beaches', 'beach'],
    ['niches', 'niche'],
    ['buzzes', 'buzz'],
    ['leases', 'lease'],
    ['databases', 'database'],
    ['clauses', 'clause'],
    ['statuses', 'status'],
    ['viruses', 'virus'],
    ['data', 'data'],
    ['metadata', 'metadata'],
    ['people', 'person'],
  ])('%s → %s', (plural, singular) => {
    expect(singularOf(plural)).toBe(singular);
  });
});
