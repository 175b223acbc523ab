import { loudBanner } from '@pi/tools/dist/test/chromium';

/** Skipping what needs a tool this machine lacks (Redis, Chromium, kubectl, a container engine): loudly, so a green run cannot hide it. */
export function skipLoudly(ctx: Mocha.Context, ...lines: string[]): never {
  loudBanner(...lines);
  return ctx.skip();
}
