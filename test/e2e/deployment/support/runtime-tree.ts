/**
 * The runtime image's /app, rebuilt outside Docker from the Dockerfile itself, so that the suites can run what
 * the containers run on machines without a container engine:
 *
 * - `COPY --from=deps /app /app`: the files the `base` stage copies (package.json files, the lockfile) and
 *   the production dependencies only (`npm ls --omit=dev`, hard-linked from this checkout's node_modules,
 *   what `npm ci --omit=dev` installs), less what the deps stage's `rm -rf` removes;
 * - `COPY --from=build <path> <dest>`: that path of this checkout after `npm run build`;
 * - `COPY <<'EOF' <dest>` heredocs (the `pi` command and its scripts), with their `--chmod`.
 *
 * Any other instruction of the runtime stage that puts files under /app is an error here, so the tree can
 * not silently drift from the image. Built once per test run, removed at exit.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, Stage, copyArgs, parseDockerfile } from './files';

const APP = '/app';

let built: string | undefined;

/** Where the tree is (built on first use). */
export function runtimeTree(): string {
  if (built) return built;
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-runtime-tree-'));
  process.once('exit', () => fs.rmSync(tree, { recursive: true, force: true }));
  const dockerfile = parseDockerfile();
  const runtime = dockerfile.stage('runtime');
  const workdir = runtime.instructions.find((i) => i.keyword === 'WORKDIR')?.args;
  if (workdir !== APP) throw new Error(`the runtime stage's WORKDIR is ${workdir}, not ${APP}`);
  for (const instruction of runtime.instructions) {
    if (instruction.keyword !== 'COPY' && instruction.keyword !== 'ADD') continue;
    const { flags, sources, dest } = copyArgs(instruction);
    const target = inTree(tree, dest);
    if (instruction.heredocs.length) {
      if (instruction.heredocs.length !== 1 || sources.length !== 1) throw new Error(`Dockerfile line ${instruction.line}: one heredoc per COPY here`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, instruction.heredocs[0].body, { mode: flags.chmod ? parseInt(flags.chmod, 8) : 0o644 });
    } else if (flags.from === 'deps') {
      if (sources.join(' ') !== APP || dest !== APP) throw new Error(`Dockerfile line ${instruction.line}: the deps stage is copied whole (${APP} ${APP})`);
      copyDepsStage(dockerfile.stage('deps'), dockerfile.stage('base'), tree);
    } else if (flags.from === 'build') {
      for (const source of sources) {
        if (!source.startsWith(`${APP}/`)) throw new Error(`Dockerfile line ${instruction.line}: ${source} is not under ${APP}`);
        const from = path.join(ROOT, source.slice(APP.length + 1));
        if (!fs.existsSync(from)) throw new Error(`Dockerfile line ${instruction.line}: ${source} does not exist after npm run build (${from})`);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.cpSync(from, target, { recursive: true });
      }
    } else {
      throw new Error(`Dockerfile line ${instruction.line}: the runtime stage copies from the build context (${instruction.args}); the tree cannot follow`);
    }
  }
  built = tree;
  return tree;
}

function inTree(tree: string, dest: string): string {
  const absolute = path.posix.isAbsolute(dest) ? dest : path.posix.join(APP, dest);
  if (absolute !== APP && !absolute.startsWith(`${APP}/`)) throw new Error(`${dest} is outside ${APP}`);
  return path.join(tree, absolute.slice(APP.length));
}

/** The `base` stage's COPYs (from the build context), production node_modules, then the deps stage's removals. */
function copyDepsStage(deps: Stage, base: Stage, tree: string): void {
  for (const instruction of base.instructions.filter((i) => i.keyword === 'COPY')) {
    const { flags, sources, dest } = copyArgs(instruction);
    if (flags.from) throw new Error(`Dockerfile line ${instruction.line}: the base stage copies from the context only`);
    for (const source of sources) {
      const target = dest.endsWith('/') ? path.join(inTree(tree, dest), path.basename(source)) : inTree(tree, dest);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(path.join(ROOT, source), target);
    }
  }
  const install = deps.instructions.find((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
  if (!install || !/--omit=dev\b/.test(install.args)) throw new Error('the deps stage does not run `npm ci --omit=dev`');
  copyProductionModules(tree);
  for (const m of install.args.matchAll(/\brm -rf ((?:[^\s&;|]+\s*)+)/g)) {
    for (const p of m[1].trim().split(/\s+/)) fs.rmSync(inTree(tree, p), { recursive: true, force: true });
  }
}

/** Hard links (copies across file systems) of every production package of this checkout's node_modules. */
function copyProductionModules(tree: string): void {
  // npm ls exits non-zero over problems it also prints (an extraneous package, say); the listing is still whole.
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listing = ls.stdout ?? '';
  if (!listing.trim()) throw new Error(`npm ls --omit=dev listed nothing: ${ls.error?.message ?? ls.stderr}`);
  const packages = listing
    .split('\n')
    .map((p) => p.trim())
    .filter((p) => p.startsWith(path.join(ROOT, 'node_modules') + path.sep))
    .map((p) => path.relative(ROOT, p))
    .sort();
  const top: string[] = [];
  for (const p of packages) if (!top.some((t) => p.startsWith(t + path.sep))) top.push(p);
  const links = top.filter((p) => fs.lstatSync(path.join(ROOT, p)).isSymbolicLink());
  const dirs = top.filter((p) => !links.includes(p));
  // Workspace packages are links to their folders (node_modules/@pi/common -> ../../libs/common): kept as links.
  for (const link of links) {
    fs.mkdirSync(path.join(tree, path.dirname(link)), { recursive: true });
    fs.symlinkSync(fs.readlinkSync(path.join(ROOT, link)), path.join(tree, link));
  }
  for (let i = 0; i < dirs.length; i += 200) {
    const batch = dirs.slice(i, i + 200);
    try {
      execFileSync('cp', ['-al', '--parents', ...batch, tree], { cwd: ROOT, stdio: 'ignore' });
    } catch {
      execFileSync('cp', ['-a', '--parents', ...batch, tree], { cwd: ROOT, stdio: 'ignore' });
    }
  }
}

/** The environment a command of the image gets: the Dockerfile's ENV, with /app being the tree. */
export function imageEnv(tree = runtimeTree()): Record<string, string> {
  const env: Record<string, string> = {};
  const runtime = parseDockerfile().stage('runtime');
  for (const i of runtime.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const m of i.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)) env[m[1]] = m[2];
  }
  const resolve = (value: string) =>
    value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => (name === 'PATH' ? (process.env.PATH ?? '') : (env[name] ?? '')));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = resolve(v).split(APP).join(tree);
  // SERVICE comes from the build argument's default.
  const arg = runtime.instructions.find((i) => i.keyword === 'ARG' && i.args.startsWith('SERVICE='));
  if (arg) out.SERVICE = arg.args.slice('SERVICE='.length);
  return out;
}

/** `pi <args…>` as the image runs it (tini aside): the tree's bin/pi with the image's environment and `env`. */
export function piCommand(tree = runtimeTree()): { command: string; args: string[] } {
  return { command: 'sh', args: [path.join(tree, 'bin', 'pi')] };
}
