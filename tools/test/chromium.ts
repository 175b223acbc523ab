/**
 * Headless Chromium as every browser check of the repository runs it (tools/test/standalone.test.ts, and
 * test/support/browser.ts, which takes it from here): Debian's Chromium headless shell
 * (`/usr/bin/chromium-headless-shell`, package chromium-headless-shell, or TEST_CHROMIUM_PATH), with no network
 * of its own; and the loud banner of a check skipped for want of a tool (test/support/skip.ts).
 *
 * The headless shell is Chromium's engine (Blink, V8, the network stack, from the same Debian build) without
 * the browser layer around it (windows, toolbar, permission prompts), and what Playwright itself runs headless
 * by default: a page there costs about a third of the CPU it costs in `/usr/bin/chromium --headless`, which
 * builds a hidden window, its toolbar and a spare renderer for every page (docs/operations/testing.md,
 * "Chromium's headless shell"). The full browser (`FULL_CHROMIUM_PATH`) is kept for what only it has: a
 * person's permission prompt, which the camera suite refuses (test/support/camera.ts).
 *
 * No network of its own: every request goes through a proxy that is not there (`127.0.0.1:9`, nothing listens)
 * and fails at once, except those to loopback (127.0.0.0/8, `localhost`, `[::1]`), which Chromium never sends
 * through a proxy; and no host name other than `localhost` resolves (nor is a name looked up for a prefetch).
 * So a page cannot reach beyond the machine, and a request that tried fails with
 * `net::ERR_PROXY_CONNECTION_FAILED` or a name error, which test/support/browser.ts records. This costs nothing per request, unlike intercepting every request through
 * the driver (Playwright's `route`), which sent each of a page's requests through the test process.
 */
export const OFF_MACHINE_PROXY = 'http://127.0.0.1:9';

export const CHROMIUM_PATH = process.env.TEST_CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** Debian's full Chromium (package chromium), run headless. */
export const FULL_CHROMIUM_PATH = process.env.TEST_FULL_CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--proxy-server=${OFF_MACHINE_PROXY}`,
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]',
];

/** Prints `lines` between two rules of asterisks, so that a skipped check cannot hide in a green run. */
export function loudBanner(...lines: string[]): void {
  const rule = '*'.repeat(100);
  process.stdout.write(`\n${rule}\n${lines.map((line) => `*** ${line}\n`).join('')}${rule}\n\n`);
}
