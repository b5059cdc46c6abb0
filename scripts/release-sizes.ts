/**
 * Tarball and installed sizes per package, as measured by the release rehearsal, and the table each
 * package README carries between `<!-- sizes:begin -->` and `<!-- sizes:end -->`
 * (`pnpm run release:rehearse --update-readmes` rewrites it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PublishedPackage } from './release-flow.ts';
import type { InstallResult } from './selective-install.ts';

const BEGIN = '<!-- sizes:begin -->';
const END = '<!-- sizes:end -->';

/** `12.3 kB` / `4.56 MB` (decimal units, as npm prints them). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(2)} MB`;
}

/** The table for all packages (printed by the rehearsal). */
export function formatSizeTable(
  packages: readonly PublishedPackage[],
  installs: readonly InstallResult[],
): string {
  const rows = packages.map((p) => {
    const i = installs.find((r) => r.name === p.name);
    return `| ${p.name} | ${formatBytes(p.tarballBytes)} | ${formatBytes(p.unpackedBytes)} | ${i ? formatBytes(i.installedBytes) : '?'} | ${i?.installedPackages ?? '?'} |`;
  });
  return [
    '| package | tarball | unpacked | `npm install` total | packages installed |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

/** The README section of one package. */
export function readmeSizeSection(p: PublishedPackage, i: InstallResult): string {
  const thirdParty =
    i.thirdPartyDirect.length > 0 ? i.thirdPartyDirect.map((d) => `\`${d}\``).join(', ') : 'none';
  return `${BEGIN}
| tarball | unpacked | \`npm install ${p.name}\` (with dependencies) | packages installed |
| ---: | ---: | ---: | ---: |
| ${formatBytes(p.tarballBytes)} | ${formatBytes(p.unpackedBytes)} | ${formatBytes(i.installedBytes)} | ${i.installedPackages} |

Measured by the release rehearsal (\`pnpm run release:rehearse --update-readmes\`) on ${p.manifest.version}:
plain \`npm install ${p.name}\` in an empty folder brings ${i.kubeloom.map((k) => `\`${k}\``).join(', ')} and the
third-party packages they declare (${thirdParty}) with theirs. A consumer type-checks with \`skipLibCheck: false\`
(\`module: nodenext\` and \`moduleResolution: bundler\`) ${
    i.typeExtras.length > 0
      ? `once ${i.typeExtras.map((e) => `\`${e}\``).join(', ')} is added beside it (\`@kubernetes/client-node\`'s types import \`ws\` without depending on its types)`
      : 'with nothing added'
  }${i.nodeTypes ? ' and `"types": ["node"]` (`@types/node` comes with `@kubernetes/client-node`)' : ''}.
${END}`;
}

/** The sizes recorded in a README, or undefined when it has no section. */
export function readmeSizes(readme: string): { tarball: string; installed: string } | undefined {
  const section = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END));
  if (!readme.includes(BEGIN) || !readme.includes(END)) return undefined;
  const row = section.split('\n').find((l) => /^\|\s+[\d.]+ (B|kB|MB)\s+\|/.test(l));
  const cells = row?.split('|').map((c) => c.trim());
  return cells ? { tarball: cells[1] ?? '', installed: cells[3] ?? '' } : undefined;
}

/** Rewrites (or appends, under a `## Size` heading) each package README's size section, formatted as `pnpm lint` wants. */
export function updateReadmeSizes(
  root: string,
  packages: readonly PublishedPackage[],
  installs: readonly InstallResult[],
): void {
  const written: string[] = [];
  for (const p of packages) {
    const i = installs.find((r) => r.name === p.name);
    if (!i || i.problems.length > 0) continue;
    const file = path.join(root, p.dir, 'README.md');
    const readme = readFileSync(file, 'utf8');
    const section = readmeSizeSection(p, i);
    const next =
      readme.includes(BEGIN) && readme.includes(END)
        ? readme.slice(0, readme.indexOf(BEGIN)) + section + readme.slice(readme.indexOf(END) + END.length)
        : `${readme.trimEnd()}\n\n## Size\n\n${section}\n`;
    writeFileSync(file, next);
    written.push(file);
  }
  if (written.length > 0)
    execFileSync(path.join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', ...written], {
      cwd: root,
      stdio: 'ignore',
    });
}
