import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Inspector, startInspector } from '../src/index.js';
import { seededEngine } from './fixtures.js';
import { decodePng } from './png.js';

// Debian's Chromium (`apt-get install -y chromium`), driven by playwright-core: no browser download.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
// CI installs Chromium (.ci/run): there a missing browser is a failure, not a skip.
if (!available && process.env.CI) throw new Error(`no Chromium at ${CHROMIUM}: the browser test cannot run in CI`);

// Skipped only on a developer machine without Chromium (apt-get install -y chromium): the HTTP
// tests beside this one still cover every page; this file needs a real browser.
// expect.poll gives up after 1 s by default: a loaded machine's Chromium can take longer to render.
const SETTLE = { timeout: 30_000 };

describe.skipIf(!available)('the inspector in a real browser (headless Chromium)', () => {
  let seeded: Awaited<ReturnType<typeof seededEngine>>;
  let inspector: Inspector;
  let browser: Browser;

  beforeAll(async () => {
    seeded = await seededEngine();
    inspector = await startInspector({ engine: seeded.engine, agentId: 'bot', writeToken: 'browser-token' });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
    await seeded?.engine.close();
  });

  it('searches, opens a result, accepts a proposal, and draws a map that is not blank', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(`${inspector.url}/`);
    await page.getByLabel('Query').fill('green tea');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('result').first().getByRole('link');
    await expect.poll(() => first.textContent(), SETTLE).toContain('green tea');
    await first.click();
    await expect.poll(() => page.getByTestId('memory-content').textContent(), SETTLE).toContain('green tea: tea notes');
    expect(await page.getByRole('heading', { name: 'History' }).isVisible()).toBe(true);

    // Logging in with the token shows the review forms; accepting goes through the engine.
    await page.goto(`${inspector.url}/proposals?token=browser-token`);
    const proposal = page.getByTestId('proposal').first();
    await proposal.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), SETTLE).toMatch(/^Accepted: remember_memory/);
    expect(
      await seeded.engine.dreaming.proposals.get({ agentId: 'bot', proposalId: seeded.ids.proposal ?? '' }),
    ).toMatchObject({ status: 'accepted' });

    await page.goto(`${inspector.url}/map`);
    const map = page.locator('#map');
    expect(await page.getByTestId('map-point').count()).toBe(20);
    const shot = await map.screenshot();
    const dir = join(tmpdir(), 'memory-inspector-screenshots');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'embedding-map.png'), shot);
    const { width, height, rgba } = decodePng(shot);
    expect(width).toBeGreaterThanOrEqual(640);
    expect(height).toBeGreaterThanOrEqual(640);
    // Not blank: many pixels are not the white background, in several colours (one per memory type).
    let inked = 0;
    const colours = new Set<number>();
    for (let i = 0; i < rgba.length; i += 4) {
      const [r, g, b] = [rgba[i] ?? 0, rgba[i + 1] ?? 0, rgba[i + 2] ?? 0];
      if (r + g + b < 700) {
        inked++;
        colours.add((r >> 4) * 256 + (g >> 4) * 16 + (b >> 4));
      }
    }
    expect(inked).toBeGreaterThan(500);
    expect(colours.size).toBeGreaterThanOrEqual(3);

    // Clicking a point opens its memory.
    await page.getByTestId('map-point').first().click();
    await expect.poll(() => page.getByRole('heading', { name: 'Memory', exact: true }).isVisible(), SETTLE).toBe(true);
    await page.close();
  }, 180_000);
});
