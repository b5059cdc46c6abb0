// The guide "Types from a CRD and a CRD from types" (docs/guides/crds-and-types.md): API types
// written with markers. `src/guide.test.ts` generates a CRD from this file, then types, validators
// and a typed client from that CRD.
// #region types
import type { V1ObjectMeta } from '@kubernetes/client-node';

/**
 * Backup copies a PersistentVolumeClaim on a schedule.
 *
 * @group backup.example.dev
 * @version v1
 * @scope Namespaced
 * @subresource status
 * @printColumn name=Schedule type=string jsonPath=.spec.schedule
 * @rbac groups=backup.example.dev resources=backups verbs=get;list;watch
 * @rbac groups=backup.example.dev resources=backups/status verbs=get;update;patch
 */
export interface Backup {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: BackupSpec;
  status?: BackupStatus;
}

/** What to back up and when. */
export interface BackupSpec {
  /**
   * The claim to copy.
   *
   * @minLength 1
   * @maxLength 253
   */
  claimName: string;
  /**
   * A cron schedule.
   *
   * @pattern ^(\S+\s){4}\S+$
   */
  schedule: string;
  /**
   * How many copies to keep.
   *
   * @format int32
   * @minimum 1
   * @default 7
   */
  keep?: number;
}

/** What the controller observed. */
export interface BackupStatus {
  /** When the last copy finished (RFC 3339). @format date-time */
  lastCompleted?: string;
}
// #endregion types
