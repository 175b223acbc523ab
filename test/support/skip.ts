/** Skipping what needs a tool this machine lacks (Redis, Chromium, kubectl, a container engine): loudly, so a green run cannot hide it. */
export function skipLoudly(ctx: Mocha.Context, ...lines: string[]): never {
  const rule = '*'.repeat(100);
  process.stdout.write(`\n${rule}\n${lines.map((line) => `*** ${line}\n`).join('')}${rule}\n\n`);
  return ctx.skip();
}
