/** Imported first by cli.ts: tracing must start before pg and http load (docs/operations/tracing.md). */
import { startTracing } from '@pi/common/dist/src/tracing/start';

startTracing('check-rules');
