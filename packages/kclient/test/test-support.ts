/** A unique suffix for cluster-scoped names (CRD groups) shared by the whole run. */
export function uniqueSuffix(): string {
  return Math.random().toString(36).slice(2, 8);
}
