/**
 * Reading the deployment files as the tools that use them do: the Kubernetes manifests of k8s/ (multi-document
 * YAML), docker-compose.yml (YAML merge keys, `${VAR…}` interpolation from .env), and the Dockerfile (stages,
 * instructions, heredocs). Nothing here knows what the files should say; the suites do.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const ROOT = path.resolve(__dirname, '../../../../..');
/** The manifests the overlays share (k8s/base), the overlays, and the optional components. */
export const K8S_DIR = path.join(ROOT, 'k8s', 'base');
export const K8S_OVERLAYS_DIR = path.join(ROOT, 'k8s', 'overlays');
export const K8S_COMPONENTS_DIR = path.join(ROOT, 'k8s', 'components');

// ---- Kubernetes ---------------------------------------------------------------------------------------------

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

export interface ManifestDoc {
  file: string;
  /** Position of the document in its file, from 0. */
  index: number;
  object: K8sObject;
}

/** Every YAML document of every file in k8s/base (the kustomization included), in file order. */
export function loadManifestDocs(dir = K8S_DIR): ManifestDoc[] {
  const docs: ManifestDoc[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    docs.push(...parseYamlDocs(fs.readFileSync(path.join(dir, file), 'utf8'), file));
  }
  return docs;
}

export function parseYamlDocs(text: string, file: string): ManifestDoc[] {
  const docs: ManifestDoc[] = [];
  YAML.parseAllDocuments(text).forEach((doc, index) => {
    if (doc.errors.length) throw new Error(`${file} (document ${index + 1}): ${doc.errors.map((e) => e.message).join('; ')}`);
    const object = doc.toJS();
    if (object !== null && object !== undefined) docs.push({ file, index, object });
  });
  return docs;
}

export const isKustomization = (o: K8sObject) => o.kind === 'Kustomization';

/** The pod template of a workload (Deployment, Job, CronJob), or undefined. */
export function podSpecOf(o: K8sObject): { metadata?: { labels?: Record<string, string> }; spec: any } | undefined {
  if (o.kind === 'Deployment' || o.kind === 'Job') return o.spec?.template;
  if (o.kind === 'CronJob') return o.spec?.jobTemplate?.spec?.template;
  return undefined;
}

/** Does a label selector (`matchLabels` and `matchExpressions` with In/NotIn/Exists/DoesNotExist) select `labels`? */
export function selects(selector: any, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && e.values.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

// ---- docker compose -----------------------------------------------------------------------------------------

export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

/** docker-compose.yml with merge keys (`<<`) resolved, before interpolation. */
export function loadCompose(file = COMPOSE_FILE): any {
  const doc = YAML.parseDocument(fs.readFileSync(file, 'utf8'), { merge: true });
  if (doc.errors.length) throw new Error(`${path.basename(file)}: ${doc.errors.map((e) => e.message).join('; ')}`);
  return doc.toJS();
}

/**
 * Compose's interpolation of one value: `$$` is a literal `$`; `${VAR}`, `$VAR`, `${VAR:-default}` (unset or
 * empty), `${VAR-default}` (unset), `${VAR:?message}` / `${VAR?message}` (an error naming it).
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  let out = '';
  for (let i = 0; i < value.length;) {
    if (value[i] !== '$') {
      out += value[i++];
      continue;
    }
    if (value[i + 1] === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (value[i + 1] === '{') {
      let depth = 1;
      let j = i + 2;
      for (; j < value.length && depth > 0; j++) {
        if (value[j] === '{') depth++;
        else if (value[j] === '}') depth--;
      }
      if (depth !== 0) throw new Error(`unterminated \${ in ${value}`);
      const inner = value.slice(i + 2, j - 1);
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])(.*))?$/s.exec(inner);
      if (!m) throw new Error(`bad interpolation \${${inner}}`);
      const [, name, colon, op, rest] = m;
      const current = env[name];
      const missing = current === undefined || (colon === ':' && current === '');
      if (op === '-') out += missing ? interpolate(rest, env) : current;
      else if (op === '?') {
        if (missing) throw new Error(`${name}: ${rest}`);
        out += current;
      } else out += current ?? '';
      i = j;
      continue;
    }
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(value.slice(i));
    if (!m) {
      out += '$';
      i++;
      continue;
    }
    out += env[m[1]] ?? '';
    i += m[0].length;
  }
  return out;
}

/** The variables a value reads from .env, with whether each has a default. */
export function variablesOf(value: string): Array<{ name: string; required: boolean; hasDefault: boolean }> {
  const found: Array<{ name: string; required: boolean; hasDefault: boolean }> = [];
  for (const m of value.replace(/\$\$/g, '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?])?/g)) {
    found.push({ name: m[1], required: m[2]?.endsWith('?') ?? false, hasDefault: m[2]?.endsWith('-') ?? false });
  }
  return found;
}

/** A compose service's environment (map or list form), interpolated, every value a string. */
export function composeEnvironment(service: any, dotenv: Record<string, string>): Record<string, string> {
  const raw = service.environment ?? {};
  const entries: Array<[string, unknown]> = Array.isArray(raw)
    ? raw.map((line: string) => {
        const at = line.indexOf('=');
        return at < 0 ? [line, dotenv[line] ?? ''] : [line.slice(0, at), line.slice(at + 1)];
      })
    : Object.entries(raw);
  return Object.fromEntries(entries.map(([k, v]) => [k, interpolate(v === null || v === undefined ? '' : String(v as string | number | boolean), dotenv)]));
}

// ---- Dockerfile ---------------------------------------------------------------------------------------------

export const DOCKERFILE = path.join(ROOT, 'Dockerfile');

export interface Heredoc {
  delimiter: string;
  body: string;
}

export interface Instruction {
  keyword: string;
  /** The arguments, continuation lines joined, heredoc bodies not included. */
  args: string;
  heredocs: Heredoc[];
  line: number;
}

export interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** Instructions before the first FROM (global ARGs). */
  globals: Instruction[];
  stages: Stage[];
  stage(name: string): Stage;
}

export function parseDockerfile(text = fs.readFileSync(DOCKERFILE, 'utf8')): Dockerfile {
  const lines = text.split('\n');
  const globals: Instruction[] = [];
  const stages: Stage[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i];
    if (!first.trim() || first.trim().startsWith('#')) continue;
    const start = i + 1;
    let logical = first;
    while (/\\\s*$/.test(logical) && i + 1 < lines.length) {
      logical = logical.replace(/\\\s*$/, ' ');
      const next = lines[++i];
      if (!next.trim().startsWith('#')) logical += next.trim();
    }
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(logical);
    if (!m) throw new Error(`Dockerfile line ${start}: cannot read "${logical}"`);
    const heredocs: Heredoc[] = [];
    for (const h of m[2].matchAll(/<<-?(["']?)([A-Za-z_][A-Za-z0-9_]*)\1/g)) {
      const body: string[] = [];
      while (++i < lines.length && lines[i] !== h[2]) body.push(lines[i]);
      if (i >= lines.length) throw new Error(`Dockerfile line ${start}: heredoc ${h[2]} is not closed`);
      heredocs.push({ delimiter: h[2], body: body.join('\n') + '\n' });
    }
    const instruction: Instruction = { keyword: m[1].toUpperCase(), args: m[2].trim(), heredocs, line: start };
    if (instruction.keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!from) throw new Error(`Dockerfile line ${start}: cannot read FROM ${instruction.args}`);
      stages.push({ name: from[2] ?? String(stages.length), base: from[1], instructions: [] });
    } else if (stages.length === 0) globals.push(instruction);
    else stages[stages.length - 1].instructions.push(instruction);
  }
  return {
    globals,
    stages,
    stage(name: string) {
      const found = stages.find((s) => s.name === name);
      if (!found) throw new Error(`the Dockerfile has no stage "${name}"`);
      return found;
    },
  };
}

/** `COPY`/`ADD` arguments: flags (`--from=build`), sources and the destination. */
export function copyArgs(instruction: Instruction): { flags: Record<string, string>; sources: string[]; dest: string } {
  const words = instruction.args.split(/\s+/).filter(Boolean);
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith('--')) {
    const [k, v] = words.shift()!.slice(2).split('=');
    flags[k] = v ?? 'true';
  }
  const dest = words.pop();
  if (!dest) throw new Error(`Dockerfile line ${instruction.line}: COPY without a destination`);
  return { flags, sources: words, dest };
}

/** The exec-form (JSON array) of CMD, ENTRYPOINT, HEALTHCHECK … CMD. */
export function execForm(args: string): string[] {
  const at = args.indexOf('[');
  if (at < 0) throw new Error(`not an exec form: ${args}`);
  return JSON.parse(args.slice(at)) as string[];
}
