/** Kubernetes version priority: GA > beta > alpha, then by number (v2 > v1, v1beta2 > v1beta1). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0, v] as const;
    return [
      1,
      m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1,
      Number(m[1]) * 1000 + Number(m[3] ?? 0),
      v,
    ] as const;
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] as number) - (pb[i] as number);
  return a < b ? 1 : a > b ? -1 : 0;
}
