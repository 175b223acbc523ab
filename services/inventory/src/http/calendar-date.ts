import Joi from 'joi';

/**
 * A real calendar date `YYYY-MM-DD`, years 0001–9999 (PostgreSQL has no year 0): `2025-02-30` is refused, not
 * rolled over, and no time or zone is accepted.
 */
export const calendarDate = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .custom((value: string, helpers) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value || value.startsWith('0000')) return helpers.error('date.calendar');
    return value;
  })
  .messages({
    'string.pattern.base': '{#label} must be a date in YYYY-MM-DD format',
    'date.calendar': '{#label} is not a valid calendar date',
  });
