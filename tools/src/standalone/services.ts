/** The five processes of the system, how to start each, and the environment each gets. */
import path from 'node:path';

export interface ChildSpec {
  name: string;
  script: string;
  port: number;
  portVariable: string;
}

const ROOT = path.resolve(__dirname, '../../../..');

export function childSpecs(env: NodeJS.ProcessEnv): ChildSpec[] {
  const port = (variable: string, fallback: number) => Number(env[variable] ?? fallback);
  const service = (name: string, portVariable: string, fallback: number): ChildSpec => ({
    name,
    script: path.join(ROOT, 'services', name, 'dist/src/main.js'),
    port: port(portVariable, fallback),
    portVariable,
  });
  return [
    service('inventory', 'INVENTORY_PORT', 8001),
    service('qr', 'QR_PORT', 8002),
    service('monitor', 'MONITOR_PORT', 8003),
    service('notifier', 'NOTIFIER_PORT', 8004),
    service('gateway', 'GATEWAY_PORT', 8000),
  ];
}

/** Environment shared by every child: database, secrets, public URL, and where the gateway finds the services. */
export function childEnvironment(base: NodeJS.ProcessEnv, specs: ChildSpec[], databaseUrl: string, secrets: Record<string, string>): NodeJS.ProcessEnv {
  const byName = Object.fromEntries(specs.map((s) => [s.name, s]));
  const gatewayPort = byName.gateway.port;
  const env: NodeJS.ProcessEnv = {
    ...base,
    ...Object.fromEntries(Object.entries(secrets).filter(([k]) => base[k] === undefined)),
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: base.PUBLIC_BASE_URL ?? `http://localhost:${gatewayPort}`,
    INVENTORY_URL: `http://127.0.0.1:${byName.inventory.port}`,
    QR_URL: `http://127.0.0.1:${byName.qr.port}`,
    MONITOR_URL: `http://127.0.0.1:${byName.monitor.port}`,
    NOTIFIER_URL: `http://127.0.0.1:${byName.notifier.port}`,
  };
  for (const spec of specs) env[spec.portVariable] = String(spec.port);
  // Each process names itself in traces (pi-gateway, pi-inventory…): one OTEL_SERVICE_NAME for all five would
  // merge them into one service (docs/operations/tracing.md). The other OTEL_* variables apply to all.
  delete env.OTEL_SERVICE_NAME;
  return env;
}
