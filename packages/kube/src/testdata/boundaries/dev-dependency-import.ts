// A planted boundary violation, used only by scripts/check-boundaries.test.ts: published code
// importing a devDependency, which the tarball would not carry. Never imported by real code.
export { expect } from 'vitest';
