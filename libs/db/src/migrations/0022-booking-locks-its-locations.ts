/**
 * A booking key-share-locks each location it checks (docs/decisions/0001-stock-ledger.md).
 *
 * `ledger_check_location` read the location without a lock. A booking into an empty location that read it as
 * active, then waited for its stock lock, could commit after a deactivation of that location had found it
 * empty and committed: stock in an inactive location, which no list shows. FOR KEY SHARE is the lock the
 * movement's reference to the location takes anyway, only taken at the check instead of at the insert: a
 * deactivation (FOR UPDATE) now waits for the bookings that checked the location, and a booking that comes
 * after it waits, then reads the location as inactive and is refused.
 */
import type { MigrationFn } from '../migrator';

const checkLocation = (lock: string) => `
    CREATE OR REPLACE FUNCTION ledger_check_location(company uuid, location uuid, side text) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      found_location record;
    BEGIN
      SELECT l.company_id, l.type, l.is_active INTO found_location FROM locations l WHERE l.id = location ${lock};
      IF NOT FOUND THEN PERFORM ledger_refuse('not_found', json_build_object('what', 'Location')); END IF;
      IF found_location.company_id <> company THEN PERFORM ledger_refuse('access_denied'); END IF;
      IF found_location.type = 'VIRTUAL' THEN PERFORM ledger_refuse('virtual_location', json_build_object('side', side)); END IF;
      IF NOT found_location.is_active THEN PERFORM ledger_refuse('inactive_location', json_build_object('side', side)); END IF;
    END $$;
`;

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(checkLocation('FOR KEY SHARE'));
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(checkLocation(''));
};
