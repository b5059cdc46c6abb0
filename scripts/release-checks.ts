/**
 * What a published release must look like (issue 16.2). Each check returns the problems it found,
 * worded as what is wrong and what to change; an empty list means the release is as intended.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PublishedPackage, ReleaseFlowResult } from './release-flow.ts';

/** The version the first release must have. */
export const FIRST_RELEASE_VERSION = '0.1.0';
/** The repository every manifest points at (provenance requires the URL to match the building repository). */
export const REPOSITORY_URL = 'git+https://github.com/kubeloom/kubeloom.git';
const REPOSITORY_HTTPS = 'https://github.com/kubeloom/kubeloom';

const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** True for a range that allows a single version only (`1.2.3`, `=1.2.3`, `v1.2.3`): users cannot dedupe it. */
export function isExactPin(range: string): boolean {
  return /^[=v]?\d+\.\d+\.\d+(-[\w.]+)?$/.test(range.trim());
}

/** Every problem of the release as a whole and of each package; empty when all is as intended. */
export function checkRelease(result: ReleaseFlowResult, root: string): string[] {
  const problems: string[] = [];
  const left = result.changesetFilesLeft.filter((f) => f !== 'README.md' && f !== 'config.json');
  if (left.length > 0) problems.push(`changeset version left changesets unconsumed: ${left.join(', ')}`);
  const rootLicense = readFileSync(path.join(root, 'LICENSE'), 'utf8');
  for (const pkg of result.packages) {
    problems.push(
      ...checkPackage(pkg, { tags: result.tags, rootLicense, copy: result.copy }).map(
        (p) => `${pkg.name}: ${p}`,
      ),
    );
  }
  return problems;
}

function checkPackage(
  pkg: PublishedPackage,
  ctx: { tags: readonly string[]; rootLicense: string; copy: string },
): string[] {
  const m = pkg.manifest;
  const problems: string[] = [];
  const want = (ok: boolean, problem: string): void => {
    if (!ok) problems.push(problem);
  };
  // Versions.
  want(
    m.version === FIRST_RELEASE_VERSION,
    `version is ${m.version}, the first release must be ${FIRST_RELEASE_VERSION} (manifests say 0.0.0 before it, the changesets bump minor)`,
  );
  want(
    ctx.tags.includes(`${m.name}@${m.version}`),
    `no git tag ${m.name}@${m.version} after changeset publish`,
  );
  want(m.private !== true, 'is private but was published');
  // Ranges.
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries(m[field] ?? {})) {
      want(
        !/^(workspace|catalog|link|file):/.test(range),
        `${field}.${dep} is "${range}": the publish did not rewrite it`,
      );
      if (dep.startsWith('@kubeloom/'))
        want(
          range === `^${FIRST_RELEASE_VERSION}`,
          `${field}.${dep} is "${range}", want "^${FIRST_RELEASE_VERSION}" (workspace:^ rewritten)`,
        );
      else
        want(
          !isExactPin(range),
          `${field}.${dep} is pinned to "${range}": use a caret range so users can dedupe (the catalog in pnpm-workspace.yaml or the manifest)`,
        );
    }
  }
  want(
    m.devDependencies === undefined ||
      !Object.values(m.devDependencies).some((r) => /^(workspace|catalog):/.test(r)),
    'devDependencies keep workspace:/catalog: ranges',
  );
  // Changelog.
  want(
    pkg.changelog?.includes(`## ${FIRST_RELEASE_VERSION}`) === true,
    `CHANGELOG.md has no "## ${FIRST_RELEASE_VERSION}" section`,
  );
  want(pkg.files.includes('CHANGELOG.md'), 'the tarball has no CHANGELOG.md');
  // Metadata.
  want(typeof m.description === 'string' && m.description.length > 20, 'no description');
  want(
    (m.keywords?.length ?? 0) >= 3 && m.keywords?.includes('kubernetes') === true,
    'keywords missing (at least 3, "kubernetes" among them)',
  );
  want(m.license === 'Apache-2.0', `license is ${m.license}, want Apache-2.0`);
  want(
    m.homepage === `${REPOSITORY_HTTPS}/tree/main/${pkg.dir}#readme`,
    `homepage is ${m.homepage}, want ${REPOSITORY_HTTPS}/tree/main/${pkg.dir}#readme`,
  );
  want(
    m.bugs?.url === `${REPOSITORY_HTTPS}/issues`,
    `bugs.url is ${m.bugs?.url}, want ${REPOSITORY_HTTPS}/issues`,
  );
  want(
    m.repository?.type === 'git' && m.repository.url === REPOSITORY_URL && m.repository.directory === pkg.dir,
    `repository is ${JSON.stringify(m.repository)}, want { type: git, url: ${REPOSITORY_URL}, directory: ${pkg.dir} }`,
  );
  want(typeof m.engines?.node === 'string' && m.engines.node.startsWith('>='), 'engines.node missing');
  want((m.files?.length ?? 0) > 0, 'no "files" allow-list');
  // Provenance: `npm publish --provenance` (or this publishConfig) in a CI with an OIDC token signs the
  // tarball; the registry rejects it unless repository.url names the repository that built it.
  want(m.publishConfig?.provenance === true, 'publishConfig.provenance is not true');
  want(m.publishConfig?.access === 'public', 'publishConfig.access is not "public"');
  // Files.
  want(pkg.files.includes('LICENSE'), 'the tarball has no LICENSE');
  try {
    const license = readFileSync(path.join(ctx.copy, pkg.dir, 'LICENSE'), 'utf8');
    want(license === ctx.rootLicense, 'LICENSE differs from the repository root LICENSE');
  } catch {
    problems.push(`${pkg.dir}/LICENSE is missing`);
  }
  want(pkg.files.includes('README.md'), 'the tarball has no README.md');
  want(
    pkg.files.includes('dist/index.js') && pkg.files.includes('dist/index.d.ts'),
    'the tarball has no dist/index.js and dist/index.d.ts: was it built?',
  );
  const stray = pkg.files.filter((f) => /\.test(-d)?\.ts$|(^|\/)testdata\/|\.tsbuildinfo$|^test\//.test(f));
  want(stray.length === 0, `the tarball ships tests or build state: ${stray.slice(0, 5).join(', ')}`);
  return problems;
}
