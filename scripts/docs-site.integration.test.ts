/**
 * The docs site in a real browser (issue 16 item 5): builds the site as `pnpm run docs` does (into
 * a temporary folder), serves it on 127.0.0.1 and drives headless Chromium over the DevTools
 * protocol (`scripts/browser.ts`). Without Chromium it fails, saying how to get it — never skips.
 * Screenshots of the landing page and a guide go to `docs-site-screenshots/` (gitignored) for review.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, findChromium, launchChromium, type Page } from './browser.ts';
import { brokenLinks, buildSite, serveSite } from './docs-site.ts';

const root = path.resolve(import.meta.dirname, '..');
const screenshots = path.join(root, 'docs-site-screenshots');
const site = mkdtempSync(path.join(tmpdir(), 'kubeloom-docs-site-'));
const stop = new AbortController();
let server: Awaited<ReturnType<typeof serveSite>>;
let browser: Browser;

beforeAll(async () => {
  findChromium(); // first: a missing browser fails at once, with how to get it
  await buildSite(site, stop.signal);
  server = await serveSite(site);
  browser = await launchChromium({ signal: stop.signal });
}, 900_000);

afterAll(async () => {
  await browser?.[Symbol.asyncDispose]();
  await server?.[Symbol.asyncDispose]();
  stop.abort();
  rmSync(site, { recursive: true, force: true });
});

async function open(url: string): Promise<Page> {
  const page = await browser.newPage({ width: 1280, height: 900 });
  await page.goto(url);
  return page;
}

/** Types `query` into typedoc's search box and returns the results' links once they appear. */
async function search(page: Page, query: string): Promise<string[]> {
  await page.evaluate(`document.getElementById('tsd-search-trigger').click()`);
  await page.evaluate(`(() => {
    const input = document.getElementById('tsd-search-input');
    input.value = ${JSON.stringify(query)};
    input.dispatchEvent(new Event('input', { bubbles: true }));
  })()`);
  return page.waitFor<string[]>(
    `search results for "${query}"`,
    `(() => { const r = [...document.querySelectorAll('#tsd-search-results li a')].map((a) => a.getAttribute('href').replace(/^\\.\\//, '')); return r.length > 0 ? r : null; })()`,
  );
}

describe('the docs site in headless Chromium', () => {
  it('renders the landing page: title, the package stack picture, the guides', async () => {
    const page = await open(server.url);
    expect(await page.evaluate<string>('document.querySelector("h1, h2")?.textContent')).toMatch(/kubeloom/);
    const picture = await page.waitFor<{ width: number; src: string }>(
      'the stack picture to load',
      `(() => { const img = document.querySelector('img[src$="stack.svg"]'); return img?.complete && img.naturalWidth > 0 ? { width: img.naturalWidth, src: img.src } : null; })()`,
    );
    expect(picture.width).toBeGreaterThan(300);
    const guides = await page.evaluate<string[]>(
      `[...document.querySelectorAll('a[href^="documents/"]')].map((a) => a.textContent.trim())`,
    );
    expect(guides).toEqual(
      expect.arrayContaining(['Your first controller with kclient + controllers', 'Performance']),
    );
    mkdirSync(screenshots, { recursive: true });
    writeFileSync(path.join(screenshots, 'landing.png'), await page.screenshot());
    expect(page.errors).toEqual([]);
  });

  it('search finds Collection by name and "workqueue" in doc comments', async () => {
    const page = await open(server.url);
    expect(await search(page, 'Collection')).toContain('interfaces/_kubeloom_krt.index.Collection.html');
    // "workqueue" is no symbol's name: only doc comments (searchInComments) and guides mention it.
    // A fresh page: the previous query's results would otherwise satisfy the wait at once.
    const hits = await search(await open(server.url), 'workqueue');
    expect(hits).toEqual(expect.arrayContaining(['interfaces/_kubeloom_controllers.Queue.html']));
    expect(page.errors).toEqual([]);
  });

  it('opens a guide: its code is included from the tested example', async () => {
    const page = await open(`${server.url}documents/Your_first_controller_with_kclient_+_controllers.html`);
    expect(await page.evaluate<string>('document.querySelector(".tsd-typography h1")?.textContent')).toBe(
      'Your first controller with kclient + controllers',
    );
    const code = await page.evaluate<string>(
      `[...document.querySelectorAll('pre code')].map((c) => c.textContent).join('\\n')`,
    );
    expect(code).toContain('function teamInfoController(kube: KubeClient)');
    expect(code).not.toContain('#region'); // includes are resolved, not printed
    writeFileSync(path.join(screenshots, 'guide.png'), await page.screenshot());
    expect(page.errors).toEqual([]);
  });

  it('opens a class page with its members', async () => {
    const page = await open(`${server.url}classes/_kubeloom_controllers.TerminalError.html`);
    expect(await page.evaluate<string>('document.querySelector("h1")?.textContent')).toMatch(/TerminalError/);
    expect(await page.evaluate<number>('document.querySelectorAll(".tsd-member").length')).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
  });

  it('opens the performance page: every committed benchmark chart loads', async () => {
    const page = await open(`${server.url}documents/Performance.html`);
    expect(await page.evaluate<string>('document.querySelector(".tsd-typography h1")?.textContent')).toBe(
      'Performance',
    );
    // docs/performance/*.svg, written by `pnpm docs:performance` (none until results are committed)
    const dir = path.join(root, 'docs', 'performance');
    const charts = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.svg')) : [];
    const loaded = await page.waitFor<string[]>(
      `${charts.length} charts to load`,
      `(() => { const imgs = [...document.querySelectorAll('.tsd-typography img')]; return imgs.length === ${charts.length} && imgs.every((i) => i.complete && i.naturalWidth > 0) ? imgs.map((i) => i.getAttribute('src').split('/').pop()) : null; })()`,
    );
    expect(loaded.sort()).toEqual(charts.sort());
    expect(page.errors).toEqual([]);
  });

  it('every internal link of every page resolves (the whole site crawled)', () => {
    const { pages, links, broken } = brokenLinks(site);
    expect(pages).toBeGreaterThan(400);
    expect(links).toBeGreaterThan(pages);
    expect(broken).toEqual([]);
  });
});
