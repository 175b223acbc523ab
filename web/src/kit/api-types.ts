/**
 * Names for the generated API types (../generated/openapi.d.ts, written by `npm run api-types -w web` from the
 * OpenAPI document on every build): the pages use these instead of copies of the API's shapes.
 *
 *     type Product = Schema<'Product'>;                  // a named schema of the document
 *     const body: Body<'widgetMoveStock'> = { … };       // what an operation takes (by operationId)
 *     const answer = await api.post<Answer<'widgetMoveStock'>>('move/', body);
 */
import type { components, operations } from '../generated/openapi';

export type Schemas = components['schemas'];
export type Schema<N extends keyof Schemas> = Schemas[N];
export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : never;

/** The JSON body of an operation's request. */
export type Body<Op extends OperationId> = operations[Op] extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

/** The JSON of an operation's success answer (its 200 or 201). */
export type Answer<Op extends OperationId> = operations[Op]['responses'] extends infer R
  ? 200 extends keyof R
    ? JsonOf<R[200]>
    : 201 extends keyof R
      ? JsonOf<R[201]>
      : null
  : never;

/** The query parameters of an operation. */
export type QueryOf<Op extends OperationId> = NonNullable<operations[Op]['parameters']['query']>;

/** A page of a core list endpoint (`{count, next, previous, results}`). */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
