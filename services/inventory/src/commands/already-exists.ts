/** The company-scoped unique constraints (SKU, serial number, batch code, work order number) as 409 answers. */
import { UniqueConstraintError } from 'sequelize';
import { ConflictError } from '@pi/common';

/**
 * A `.catch` for writes a unique constraint may refuse: the refusal becomes 409 `already_exists` naming `field`,
 * with `message`; any other error passes through unchanged.
 */
export function rethrowAlreadyExists(message: string, field: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof UniqueConstraintError) throw new ConflictError('already_exists', message, { [field]: 'already exists' });
    throw err;
  };
}
