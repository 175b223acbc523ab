/**
 * Kubernetes schema validation of a manifest object with the `kubernetes-models` package: its model class
 * validates types, enums and required fields (the OpenAPI schema of the API server). Those schemas let
 * unknown fields through, where an API server drops them with at most a warning (a misspelt
 * `readinesProbe` would silently leave a Deployment without its probe), so unknown fields are found here
 * too: every key of the object is looked up in the package's TypeScript declaration of that kind, with the
 * TypeScript compiler's type checker (as `kubectl --validate=strict` would refuse them).
 */
import path from 'node:path';
import ts from 'typescript';
import { ROOT, type K8sObject } from './files';

/** Custom resources with a models package of their own (`<package>/<group/version>/<Kind>`). */
const CRD_PACKAGES: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda' };

/** `kubernetes-models/<group/version>/<Kind>`; the core group is `v1`. */
function modulePath(apiVersion: string, kind: string): string {
  return `${CRD_PACKAGES[apiVersion.split('/')[0]] ?? 'kubernetes-models'}/${apiVersion}/${kind}`;
}

/** Validates `object` with its kubernetes-models class; answers the problems (empty when valid). */
export function validateWithModel(object: K8sObject): string[] {
  let mod: Record<string, new (data: unknown) => { validate(): void }>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(modulePath(object.apiVersion, object.kind));
  } catch {
    return [`no Kubernetes schema for ${object.apiVersion} ${object.kind}`];
  }
  const Model = mod[object.kind];
  if (!Model) return [`no Kubernetes model class for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

interface TypeIndex {
  checker: ts.TypeChecker;
  types: Map<string, ts.Type>;
}

let index: TypeIndex | undefined;

/** One TypeScript program over the declarations of the kinds asked for (built once, for all of them). */
function typeIndex(kinds: Array<{ apiVersion: string; kind: string }>): TypeIndex {
  const key = (k: { apiVersion: string; kind: string }) => `${k.apiVersion}/${k.kind}`;
  if (index && kinds.every((k) => index!.types.has(key(k)))) return index;
  const unique = [...new Map(kinds.map((k) => [key(k), k])).values()];
  const virtual = path.join(ROOT, 'test', '__kubernetes_kinds__.ts');
  const source = unique.map((k, i) => `import type { I${k.kind} as K${i} } from '${modulePath(k.apiVersion, k.kind)}';\nexport type T${i} = K${i};`).join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError) =>
    path.resolve(file) === virtual ? ts.createSourceFile(file, source, language) : getSourceFile(file, language, onError);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => path.resolve(file) === virtual || fileExists(file);
  const program = ts.createProgram([virtual], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(virtual)!;
  const types = new Map<string, ts.Type>();
  let i = 0;
  for (const statement of file.statements) {
    if (ts.isTypeAliasDeclaration(statement)) {
      const type = checker.getTypeAtLocation(statement.name);
      if (type.flags & ts.TypeFlags.Any) throw new Error(`kubernetes-models has no declaration for ${key(unique[i])}`);
      types.set(key(unique[i++]), type);
    }
  }
  index = { checker, types };
  return index;
}

/** The dotted paths of `object`'s fields that its kind does not have. */
export function unknownFields(object: K8sObject, all: K8sObject[] = [object]): string[] {
  const { checker, types } = typeIndex(all.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind })));
  const type = types.get(`${object.apiVersion}/${object.kind}`);
  if (!type) return [`no declaration for ${object.apiVersion} ${object.kind}`];
  const problems: string[] = [];
  walk(checker, object, type, object.kind, problems);
  return problems;
}

function walk(checker: ts.TypeChecker, value: unknown, declared: ts.Type, where: string, problems: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const type = checker.getNonNullableType(declared);
  if (Array.isArray(value)) {
    const element = checker.getIndexInfoOfType(type, ts.IndexKind.Number)?.type;
    if (element) value.forEach((v, i) => walk(checker, v, element, `${where}[${i}]`, problems));
    return;
  }
  const candidates = type.isUnion() ? type.types.filter((t) => t.flags & ts.TypeFlags.Object) : [type];
  if (candidates.length === 0) return;
  // A union of object types (rare in these declarations): the value is fine if it fits one of them.
  let best: string[] | undefined;
  for (const candidate of candidates) {
    const found: string[] = [];
    const record = checker.getIndexInfoOfType(candidate, ts.IndexKind.String);
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const prop = candidate.getProperty(key);
      if (prop) walk(checker, v, checker.getTypeOfSymbolAtLocation(prop, prop.valueDeclaration ?? prop.declarations![0]), `${where}.${key}`, found);
      else if (record) walk(checker, v, record.type, `${where}.${key}`, found);
      else found.push(`${where}.${key}`);
    }
    if (!best || found.length < best.length) best = found;
    if (found.length === 0) break;
  }
  problems.push(...best!);
}
