/** Signing in inside a scanned widget page (web/src/widget/sign-in.ts), as a person does it. */
import type { Page } from 'playwright-core';

export async function signInToScan(page: Page, user: { username: string; password: string }): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
