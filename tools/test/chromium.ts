/**
 * Headless Chromium as every browser check of the repository runs it (tools/test/standalone.test.ts, and
 * test/support/browser.ts, which takes it from here): Debian's `/usr/bin/chromium` (or TEST_CHROMIUM_PATH),
 * with no network of its own; and the loud banner of a check skipped for want of a tool (test/support/skip.ts).
 */
export const CHROMIUM_PATH = process.env.TEST_CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Prints `lines` between two rules of asterisks, so that a skipped check cannot hide in a green run. */
export function loudBanner(...lines: string[]): void {
  const rule = '*'.repeat(100);
  process.stdout.write(`\n${rule}\n${lines.map((line) => `*** ${line}\n`).join('')}${rule}\n\n`);
}
