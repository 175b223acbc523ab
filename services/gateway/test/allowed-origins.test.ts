import { expect } from 'chai';
import { isValidDomainEntry, originAllowed } from '../src/auth/allowed-origins';

describe('allowed_domains', () => {
  it('accepts origins, host names and subdomain wildcards as entries, and nothing else', () => {
    for (const ok of ['https://shop.example.com', 'http://localhost:3000', 'shop.example.com', '*.example.com', 'localhost']) {
      expect(isValidDomainEntry(ok), ok).to.equal(true);
    }
    for (const bad of ['ftp://example.com', 'https://example.com/path', 'exa mple.com', '*.', '**.example.com', 'https://']) {
      expect(isValidDomainEntry(bad), bad).to.equal(false);
    }
  });

  it('matches an origin entry exactly, a host entry on any scheme or port, a wildcard on subdomains only', () => {
    expect(originAllowed('https://shop.example.com', ['https://shop.example.com'])).to.equal(true);
    expect(originAllowed('http://shop.example.com', ['https://shop.example.com'])).to.equal(false);
    expect(originAllowed('https://shop.example.com:8443', ['shop.example.com'])).to.equal(true);
    expect(originAllowed('https://a.b.example.com', ['*.example.com'])).to.equal(true);
    expect(originAllowed('https://example.com', ['*.example.com'])).to.equal(false);
    expect(originAllowed('https://evilexample.com', ['*.example.com'])).to.equal(false);
    expect(originAllowed('null', ['localhost'])).to.equal(false);
  });
});
