/**
 * Preloaded into a process (`NODE_OPTIONS=--require …/loaded-packages-probe.js`, with LOADED_PACKAGES_FILE set):
 * when the process exits it writes the npm packages it had loaded, one name per line, to that file. Used by
 * test/e2e/start-up.test.ts to see what a service's start loads.
 */
import fs from 'node:fs';

const file = process.env.LOADED_PACKAGES_FILE;

/** `…/node_modules/@scope/name/…` → `@scope/name`, `…/node_modules/name/…` → `name`. */
function packageOf(modulePath: string): string | undefined {
  const at = modulePath.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const [first, second] = modulePath.slice(at + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

if (file) {
  process.on('exit', () => {
    const names = new Set(
      Object.keys(require.cache)
        .map(packageOf)
        .filter((name): name is string => name !== undefined),
    );
    fs.writeFileSync(file, [...names].sort().join('\n'));
  });
}
