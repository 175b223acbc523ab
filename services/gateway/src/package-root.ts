/** Where the gateway's files are on disk, whether it runs from `src/` or the compiled `dist/src/`. */
import fs from 'node:fs';
import path from 'node:path';

/** The gateway package's directory (holds `static/` and `package.json`). */
export function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}
