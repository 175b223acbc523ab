/** Imported first by main.ts: tracing must start before express, pg and http load (docs/operations/tracing.md). */
import { startTracing } from '@pi/common/dist/src/tracing/start';

startTracing('inventory');
