import { describe, expect, it } from 'vitest';
import { extractHtml } from '../src/extract/extract-html.js';

const PAGE = `<!doctype html><html><head><title>Caf&eacute; pricing &ndash; Kestrel</title>
<style>body{}</style><script>track()</script></head><body>
<div id="cookie-banner" class="cookie-consent"><p>We use cookies. Accept all cookies?</p><button>Accept</button></div>
<header><a href="/">Kestrel Inc.</a></header>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About us</a></li><li><a href="/jobs">Careers</a></li></ul></nav>
<main><article>
<h1>Caf&eacute; pricing</h1>
<p>The caf&eacute; on the third floor charges 3&nbsp;&euro; for an espresso and 4&#8364; for a cappuccino, as of March.
The price list is reviewed every quarter by the facilities team, who publish it on the intranet.</p>
<h2>Opening hours</h2>
<p>It opens at 8:00 on weekdays &amp; closes at 17:30. On Fridays it closes early, at 15:00, because of the weekly
all-hands meeting held in the same room.</p>
<ul><li>Oat milk is free</li><li>Refills cost 1&nbsp;&euro;</li></ul>
</article></main>
<aside class="sidebar"><h3>Related</h3><p>Parking rules</p></aside>
<footer><p>&copy; 2026 Kestrel Inc. All rights reserved. Privacy policy.</p></footer>
</body></html>`;

describe('extractHtml', () => {
  it('keeps the main content with headings as Markdown, entities decoded', () => {
    const result = extractHtml(PAGE);
    expect(result.title).toBe('Café pricing – Kestrel');
    expect(result.text).toContain('charges 3 € for an espresso and 4€ for a cappuccino');
    expect(result.text).toContain('## Opening hours\n\nIt opens at 8:00 on weekdays & closes at 17:30.');
    expect(result.text).toContain('- Oat milk is free\n\n- Refills cost 1 €');
    expect(result.text).not.toMatch(/&[a-z]+;|&#\d+;/);
    expect(result.sections.map((s) => [s.label, s.level])).toContainEqual(['Opening hours', 2]);
    const opening = result.sections.find((s) => s.label === 'Opening hours');
    expect(result.text.slice(opening?.offset)).toMatch(/^## Opening hours/);
    expect(result.extractor).toBe('readability+linkedom');
  });

  it('drops navigation, header, cookie banners, sidebars and footers', () => {
    const { text } = extractHtml(PAGE);
    for (const boilerplate of [
      'cookies',
      'Accept',
      'Home',
      'About us',
      'Careers',
      'Kestrel Inc.',
      'Parking',
      '©',
      'rights reserved',
    ])
      expect(text, boilerplate).not.toContain(boilerplate);
    expect(text).not.toContain('track()');
  });

  it('drops boilerplate on a short page too, where no main content stands out', () => {
    const { text, title, warnings } = extractHtml(
      '<html><head><title>Team Handbook</title></head><body><nav>Home | Docs</nav><h1>On-call</h1><p>The on-call engineer owns the status page.</p><div class="gdpr-notice">We value your privacy</div><footer>Imprint</footer></body></html>',
    );
    expect(title).toBe('Team Handbook');
    expect(text).toContain('The on-call engineer owns the status page.');
    expect(text).not.toMatch(/Home|Docs|privacy|Imprint/);
    expect(warnings.length).toBeLessThanOrEqual(1);
  });
});
