/**
 * The last step of `npm run build -w web`: each page bundled and minified by esbuild into web/dist, which
 * the gateway serves (services/gateway/src/pages/router.ts):
 * - dist/<page>/index.html: static/<page>/index.html with its `assets/<name>` references replaced by the
 *   built files' names;
 * - dist/<page>/assets/: one script (`main-<hash>.js`, an ES module with everything it imports statically) and
 *   one stylesheet (`<page>-<hash>.css`), each with its source map; what a page imports dynamically
 *   (`import()`, such as the widget's barcode decoder, loaded only when Scan is pressed) is split into
 *   `chunks/<name>-<hash>.js`, fetched by the browser only then. The names carry a hash of the content, so
 *   the gateway lets browsers cache them for a year and a new build is picked up through the HTML alone;
 * - dist/sdk/sdk.js: the embedding SDK, a classic script (IIFE) with a fixed name, since other sites load it.
 * Type-checking is tsc's (the step before): esbuild only strips the types.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const WEB_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(WEB_ROOT, 'dist');
/** Browsers from 2021–22 on: esbuild lowers newer syntax (JS and CSS) for them. */
const TARGET = ['chrome100', 'edge100', 'firefox100', 'safari15', 'ios15'];

const PAGES = [
  { page: 'widget', script: 'src/widget/main.ts', style: 'static/widget/widget.css' },
  { page: 'dashboard', script: 'src/dashboard/main.ts', style: 'static/dashboard/dashboard.css' },
];

/**
 * jsQR (read by the widget's scan chunk) is published only as a CommonJS bundle. esbuild wraps such a module
 * with helpers that, once pages are split, it moves into a chunk of their own, which every page's main script
 * then imports: one more request before any page starts. This gives jsQR to esbuild as the ES module it
 * amounts to (its UMD wrapper sets `module.exports`, whose `default` is the function), so no helper is needed.
 */
const jsQrAsEsm = {
  name: 'jsqr-as-esm',
  setup(build) {
    build.onLoad({ filter: /[\\/]jsqr[\\/]dist[\\/]jsQR\.js$/ }, async (args) => ({
      contents: `const module = { exports: {} };\n(function (exports, module) {\n${await fs.promises.readFile(args.path, 'utf8')}\n})(module.exports, module);\nexport default module.exports.default;\n`,
      loader: 'js',
    }));
  },
};

const common = { bundle: true, minify: true, target: TARGET, logLevel: 'warning', absWorkingDir: WEB_ROOT, plugins: [jsQrAsEsm] };

/** Builds one page; answers `{ 'main.js': 'main-<hash>.js', 'widget.css': 'widget-<hash>.css' }`. */
async function buildPage({ page, script, style }) {
  const outdir = path.join(DIST, page, 'assets');
  const result = await esbuild.build({
    ...common,
    entryPoints: [script, style],
    format: 'esm',
    outdir,
    entryNames: '[name]-[hash]',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    metafile: true,
  });
  const names = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!output.entryPoint) continue;
    names[path.basename(output.entryPoint).replace(/\.ts$/, '.js')] = path.basename(file);
  }
  return names;
}

/** The page's HTML with every `assets/<name>` it references replaced by the built file's name. */
function writeHtml(page, names) {
  const template = fs.readFileSync(path.join(WEB_ROOT, 'static', page, 'index.html'), 'utf8');
  const html = template.replace(/((?:src|href)="[^"]*assets\/)([^"/]+)"/g, (_match, prefix, name) => {
    if (!names[name]) throw new Error(`static/${page}/index.html references assets/${name}, which the build does not make`);
    return `${prefix}${names[name]}"`;
  });
  fs.writeFileSync(path.join(DIST, page, 'index.html'), html);
}

async function buildSdk() {
  await esbuild.build({ ...common, entryPoints: ['src/sdk/sdk.ts'], format: 'iife', outfile: path.join(DIST, 'sdk', 'sdk.js') });
}

async function main() {
  for (const dir of [...PAGES.map((p) => p.page), 'sdk']) fs.rmSync(path.join(DIST, dir), { recursive: true, force: true });
  await Promise.all([...PAGES.map(async (p) => writeHtml(p.page, await buildPage(p))), buildSdk()]);
}

main().catch((err) => {
  console.error('web: the pages could not be bundled:', err.message ?? err);
  process.exit(1);
});
