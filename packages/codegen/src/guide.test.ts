/**
 * The guide "Types from a CRD and a CRD from types" (docs/guides/crds-and-types.md) includes its
 * code from the regions of this file and of `test/guide/backup.ts`: a CRD generated from marked
 * TypeScript types, then types, a validator and a typed client generated from that CRD.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateCrds, generateTypes } from './index.ts';

const types = fileURLToPath(new URL('../test/guide/backup.ts', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-guide-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('guide: CRDs and types', () => {
  it('a CRD from types, then types from the CRD', () => {
    // #region crd-from-types
    // TypeScript types with markers → a CRD per kind, and a ClusterRole from the @rbac markers.
    const crds = generateCrds([types], { roleName: 'backup-operator' });
    for (const file of crds.files) writeFileSync(path.join(dir, file.path), file.content); // e.g. config/crd/
    // #endregion crd-from-types
    expect(crds.files.map((f) => f.path).sort()).toEqual(['backup.example.dev_backups.yaml', 'role.yaml']);
    const crd = parse(crds.files.find((f) => f.path === 'backup.example.dev_backups.yaml')!.content);
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec.required).toEqual(['claimName', 'schedule']);
    expect(spec.properties.keep).toMatchObject({ type: 'integer', format: 'int32', minimum: 1, default: 7 });

    // #region types-from-crd
    // A CRD (yours, or a third party's) → types, a resource descriptor, a validator and a typed
    // client per kind and version: modules to commit, e.g. under src/generated/.
    const generated = generateTypes([path.join(dir, 'backup.example.dev_backups.yaml')]);
    const written = generated.files.map((f) => f.path);
    // ['backup.example.dev/v1/backup.ts', 'backup.example.dev/v1/index.ts']: the first has Backup,
    // its descriptor, BackupValidator and createBackupClient; write them where you import from.
    // #endregion types-from-crd
    expect(written).toEqual(['backup.example.dev/v1/backup.ts', 'backup.example.dev/v1/index.ts']);
    const module = generated.files.find((f) => f.path === 'backup.example.dev/v1/backup.ts')?.content ?? '';
    expect(module).toMatch(/export interface Backup\b/);
    expect(module).toMatch(/BackupValidator/);
    expect(module).toMatch(/export function createBackupClient/);
  });
});
