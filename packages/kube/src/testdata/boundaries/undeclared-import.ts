// A planted boundary violation, used only by scripts/check-boundaries.test.ts: a bare import of a
// package that kube does not declare. Never imported by real code.
export * from '@kubeloom/kclient';
