import type { Status } from '../../errors.ts';
import { type ApplyConflict, describePath } from './managed-fields.ts';
import * as S from './status.ts';

/**
 * The apiserver's 409 for a server-side apply that conflicts with other field managers: one
 * `FieldManagerConflict` cause per field, the message grouped by manager.
 */
export function applyConflictStatus(conflicts: readonly ApplyConflict[]): Status {
  const sorted = [...conflicts].sort((a, b) => (describePath(a.path) < describePath(b.path) ? -1 : 1));
  const label = (c: ApplyConflict) =>
    c.operation === 'Update' ? `"${c.manager}" using ${c.apiVersion}` : `"${c.manager}"`;
  let message: string;
  if (sorted.length === 1) {
    message = `conflict with ${label(sorted[0]!)}: ${describePath(sorted[0]!.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of sorted)
      byManager.set(label(c), [...(byManager.get(label(c)) ?? []), describePath(c.path)]);
    message = [...byManager]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([who, paths]) => [`conflicts with ${who}:`, ...paths.map((p) => `- ${p}`)].join('\n'))
      .join('\n');
  }
  return S.failure(409, 'Conflict', {
    message: `Apply failed with ${sorted.length} conflict${sorted.length === 1 ? '' : 's'}: ${message}`,
    details: {
      causes: sorted.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${label(c)}`,
        field: describePath(c.path),
      })),
    },
  });
}
