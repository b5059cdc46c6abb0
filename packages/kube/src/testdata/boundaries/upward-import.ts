// A planted boundary violation, used only by scripts/check-boundaries.test.ts: kube (bottom of the
// stack) reaching up into krt through a relative path. Never imported by real code.
export * from '../../../../krt/src/index.ts';
