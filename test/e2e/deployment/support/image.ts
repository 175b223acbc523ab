/** Running the image's commands from the runtime tree (support/runtime-tree.ts), as a container would. */
import path from 'node:path';
import { Finished, RunningProcess, runToExit, startProcess } from '../../../support/processes';
import { imageEnv, piCommand, runtimeTree } from './runtime-tree';

/** The environment of a container of the image: the image's ENV, then the container's own `env`. */
export function containerEnv(env: Record<string, string>): Record<string, string> {
  const image = imageEnv(runtimeTree());
  // The image finds node on its PATH; so must the tree.
  const PATH = [path.dirname(process.execPath), image.PATH ?? process.env.PATH ?? ''].join(':');
  return { ...image, ...env, PATH };
}

/** `pi <args>` in the tree, to its end. */
export function runPi(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Finished> {
  const { command, args: prefix } = piCommand();
  return runToExit(command, [...prefix, ...args], { cwd: runtimeTree(), env: containerEnv(env), timeoutMs });
}

/** `pi <args>` in the tree as a long-running process (a service), once it listens. */
export function startPi(name: string, args: string[], env: Record<string, string>, opts: { waitFor?: RegExp | false } = {}): Promise<RunningProcess> {
  const { command, args: prefix } = piCommand();
  return startProcess(name, command, [...prefix, ...args], containerEnv(env), { cwd: runtimeTree(), ...opts });
}
