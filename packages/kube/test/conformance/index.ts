/**
 * The ApiClient conformance suite: one set of tests run against the fake cluster
 * (`src/conformance.test.ts`) and a real apiserver (`src/conformance.integration.test.ts`).
 * Private to the package (it imports vitest and is not published): it proves kubeloom's own two
 * ApiClients, the HTTPS one and the fake, against each other.
 */
export { describeApiConformance } from './describe-api-conformance.ts';
export type { ConformanceTarget } from './target.ts';
