import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { launchChromium } from './browser.ts';

const ours = (name: string) =>
  name.startsWith('kubeloom-chromium-') || name.startsWith('org.chromium.Chromium.');

it('headless Chromium leaves nothing in the temp directory once disposed', async () => {
  const before = new Set(readdirSync(tmpdir()).filter(ours));
  const browser = await launchChromium();
  try {
    const during = readdirSync(tmpdir()).filter((n) => ours(n) && !before.has(n));
    expect(during.filter((n) => n.startsWith('kubeloom-chromium-'))).toHaveLength(1);
    const page = await browser.newPage({ width: 320, height: 200 });
    await page.goto('about:blank');
  } finally {
    await browser[Symbol.asyncDispose]();
  }
  // Before the fix, every run left an `org.chromium.Chromium.*` singleton-socket directory here.
  expect(readdirSync(tmpdir()).filter((n) => ours(n) && !before.has(n))).toEqual([]);
}, 120_000);
