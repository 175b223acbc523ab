/**
 * Helpers of the dashboard's browser suite (test/e2e/pages/dashboard.test.ts): signing in, moving between
 * screens the way a person does (the navigation, behind "Menu" on a phone), waiting for a screen to settle,
 * and the checks every screen gets (labelled controls, no sideways scrolling at 360 px), with screenshots at
 * phone and desktop widths under test-artifacts/dashboard/.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { BrowserPage, PageChecks, pageProblems } from './browser';
import { system } from './hooks';

export const dashboardUrl = () => `${system().url}/dashboard/`;

/**
 * Opens the dashboard and signs in with the keyboard only (type, Tab, type, Enter); waits for the first screen
 * (the overview), then opens Products, where the suites start, unless `onOverview`.
 */
export async function signInWithKeyboard(page: Page, username: string, password: string, opts: { onOverview?: boolean } = {}): Promise<void> {
  await page.goto(dashboardUrl());
  await page.getByRole('heading', { name: 'Inventory dashboard' }).waitFor();
  // The username field has the focus when the sign-in form appears.
  await page.keyboard.type(username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await screenHeading(page, 'Overview').waitFor();
  await settled(page);
  if (opts.onOverview) return;
  await page.evaluate(`window.location.hash = '#/products'`);
  await screenHeading(page, 'Products').waitFor();
  await settled(page);
}

export const screenHeading = (page: Page, title: string | RegExp) => page.getByRole('heading', { level: 1, name: title });

/** Waits until no list is loading. */
export async function settled(page: Page): Promise<void> {
  // A function, not a string: the dashboard's CSP (no 'unsafe-eval') refuses string predicates.
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[aria-busy=true]').length === 0, undefined, { timeout: 10_000 });
}

/** Goes to a screen through the navigation (opening the menu first when it is collapsed, on a phone). */
export async function navigate(page: Page, linkName: string, heading: string | RegExp = linkName): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const link = nav.getByRole('link', { name: linkName, exact: true });
  if (!(await link.isVisible())) {
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).to.equal('true');
  }
  await link.click();
  await screenHeading(page, heading).waitFor();
  await settled(page);
}

/** Goes to a hash route directly (for the screenshot tour). */
export async function goTo(page: Page, hash: string, heading: string | RegExp): Promise<void> {
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  await screenHeading(page, heading).waitFor();
  await settled(page);
}

/** Opens a collapsed panel (`<details>`) by its summary, if it is not open yet, and answers its form. */
export async function openPanel(page: Page, summary: string): Promise<Locator> {
  const details = page.locator('details.panel', { has: page.locator('summary', { hasText: summary }) });
  if (!(await details.evaluate((el: any) => Boolean(el.open)))) await details.locator('summary').click();
  return page.getByRole('form', { name: summary });
}

/** The text of the error shown next to a control (the element its `aria-describedby` names with the error). */
export async function fieldError(control: Locator): Promise<string> {
  expect(await control.getAttribute('aria-invalid'), 'aria-invalid').to.equal('true');
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter((id) => id.endsWith('-error'));
  expect(ids, 'an error element in aria-describedby').to.have.length(1);
  return (await control.page().locator(`[id="${ids[0]}"]`).textContent()) ?? '';
}

/** Confirms the open confirmation dialog with `button`. */
export async function confirm(page: Page, button: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** Waits for a notice above the screen containing `text`. */
export async function notice(page: Page, text: string | RegExp): Promise<void> {
  await page.locator('.notices .notice', { hasText: text }).waitFor();
}

/**
 * The checks of every dashboard screen (support/browser.ts): at 360 px labelled controls (the rendered ones)
 * and no sideways scrolling; screenshots at test-artifacts/dashboard/<name>-360.png and -1280.png, ending at
 * the width it started with.
 */
export const DASHBOARD_CHECKS: PageChecks = {
  folder: 'dashboard/',
  visibleControlsOnly: true,
  labelsAtPhone: true,
  restoreViewport: true,
  pageNoun: 'the page',
};

/** What the browser complained about, minus the failed loads of API answers a test provoked on purpose. */
export function unexpectedProblems(bp: BrowserPage, expectedStatuses: number[] = []): string[] {
  const expectedConsole = new RegExp(`Failed to load resource: the server responded with a status of (${expectedStatuses.join('|') || 'none'})\\b`);
  return pageProblems(bp, { expectedConsole, failedRequests: true, labelled: true });
}

/** `sha256=<hex>` of the webhook body with the channel secret, as X-PI-Signature carries it. */
export const signatureOf = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A datetime-local input value (local time) `days` from now, at whole minutes. */
export function localDateTimeIn(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Waits until a picker's options satisfy `expected` (a search answers after a moment); answers their labels. */
export async function expectOptions(page: Page, select: Locator, expected: (labels: string[]) => boolean, what: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  let labels: string[] = [];
  while (Date.now() < deadline) {
    labels = await select.locator('option').allTextContents();
    if (expected(labels)) return labels;
    await page.waitForTimeout(100);
  }
  expect.fail(`${what}; options: ${labels.join(' | ')}`);
}

/**
 * Types `text` into a search box as a burst of input events in one task of the page: what typing faster than
 * the search's pause looks like to the page, whatever the machine's load. Playwright's key presses are a round
 * trip each, and on a busy machine a gap between two of them can outlast the pause and fire a search mid-word.
 */
export async function typeInOneBurst(box: Locator, text: string): Promise<void> {
  await box.focus();
  await box.evaluate((el, word: string) => {
    // In the page: its DOM types are not this package's.
    const input = el as unknown as { value: string; dispatchEvent(event: unknown): boolean };
    const InputEvent = (globalThis as any).InputEvent;
    for (let i = 1; i <= word.length; i++) {
      input.value = word.slice(0, i);
      input.dispatchEvent(new InputEvent('input', { bubbles: true, data: word[i - 1], inputType: 'insertText' }));
    }
  }, text);
}
