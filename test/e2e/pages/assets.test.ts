/**
 * How the gateway serves the built pages (services/gateway/src/pages/, web/scripts/bundle.mjs): each
 * page is its HTML, one bundled module script and one stylesheet, named by a hash of their content and cached
 * for a year; the HTML is revalidated on every load; no inline script (the CSP has no 'unsafe-inline').
 */
import { expect } from 'chai';
import { system } from '../../support/hooks';

const base = () => system().url;

/** The `assets/…` files a page's HTML references, by tag. */
function assetsOf(html: string): { scripts: string[]; styles: string[] } {
  return {
    scripts: [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]),
    styles: [...html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]),
  };
}

describe('Pages: the bundled widget and dashboard as served', () => {
  for (const [page, style] of [
    ['widget', 'widget'],
    ['dashboard', 'dashboard'],
  ]) {
    it(`/${page}/ is its HTML (revalidated), one module script and one stylesheet, named by content hash and cached for a year`, async () => {
      const res = await fetch(`${base()}/${page}/`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-cache');
      expect(res.headers.get('last-modified') ?? res.headers.get('etag'), 'a validator to revalidate with').to.be.a('string');
      const html = await res.text();
      expect(html, 'no inline script').to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).to.match(/<script type="module" src="[^"]*assets\/main-[A-Z0-9]{8}\.js"><\/script>/);
      const { scripts, styles } = assetsOf(html);
      expect(scripts).to.have.length(1);
      expect(styles).to.have.length(1);
      expect(styles[0]).to.match(new RegExp(`assets/${style}-[A-Z0-9]{8}\\.css$`));

      for (const [asset, type] of [
        [scripts[0], /^(text|application)\/javascript/],
        [styles[0], /^text\/css/],
      ] as const) {
        const url = new URL(asset, `${base()}/${page}/`).href;
        const answer = await fetch(url);
        expect(answer.status, url).to.equal(200);
        expect(answer.headers.get('content-type'), url).to.match(type);
        expect(answer.headers.get('cache-control'), url).to.equal('public, max-age=31536000, immutable');
        const text = await answer.text();
        // Minified: readable source has a line per statement, about 40 characters each.
        expect(text.length / text.split('\n').length, `${url} is minified (characters per line)`).to.be.above(500);
        // Its source map is served beside it.
        const map = /\/[*/]# sourceMappingURL=(\S+?)(?: \*\/)?\s*$/.exec(text)?.[1];
        expect(map, `${url} names its source map`).to.be.a('string');
        expect((await fetch(new URL(map!, url))).status).to.equal(200);
      }
    });
  }

  it('an asset name the build did not make answers 404 (the old unbundled modules among them)', async () => {
    for (const path of [
      '/widget/assets/main.js',
      '/widget/assets/views/booking.js',
      '/dashboard/assets/main.js',
      '/widget/assets/../index.html',
      '/dashboard/assets/%2e%2e/index.html',
    ]) {
      const res = await fetch(`${base()}${path}`);
      expect(res.status, path).to.equal(404);
      expect(((await res.json()) as { code: string }).code, path).to.equal('not_found');
    }
  });

  it('/widget/sdk.js keeps its name (other sites load it): a classic script cached for five minutes', async () => {
    const res = await fetch(`${base()}/widget/sdk.js`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=300');
    const text = await res.text();
    expect(text.trim().split('\n').length, 'minified').to.be.below(5);
    expect(text, 'one function run at once (IIFE)').to.match(/^("use strict";)?\(\(\)=>\{/);
  });
});
