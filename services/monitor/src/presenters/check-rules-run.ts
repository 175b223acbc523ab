import Joi from 'joi';
import type { CompanyRunRow } from '../commands/check-rules-runs';

/**
 * One check_rules run as the calling company sees it: when it ran, how it was started, and what it did for
 * this company (`results`, null unless the company's check completed). Nothing of other companies.
 */
export function presentCheckRulesRun(r: CompanyRunRow) {
  return {
    id: r.run_id,
    trigger: r.trigger,
    started_at: r.run_started_at,
    finished_at: r.run_finished_at,
    status: r.status,
    results:
      r.status === 'completed'
        ? {
            products_evaluated: r.products_evaluated,
            events_opened: r.events_opened,
            events_resolved: r.events_resolved,
            deliveries_created: r.deliveries_created,
            due_deliveries: r.due_deliveries,
            deliveries_sent: r.delivered,
            deliveries_retrying: r.retrying,
            deliveries_failed: r.failed,
            deliveries_enqueued: r.enqueued,
          }
        : null,
  };
}

const count = Joi.number().integer().min(0).required();

/** The shape presentCheckRulesRun answers, for the OpenAPI document. */
export const checkRulesRunSchema = Joi.object({
  id: Joi.string().uuid().required(),
  trigger: Joi.string()
    .valid('scheduler', 'command')
    .required()
    .description("`scheduler`: `npm start`'s schedule; `command`: `npm run check_rules` or the CronJob."),
  started_at: Joi.date().iso().required(),
  finished_at: Joi.date().iso().required(),
  status: Joi.string()
    .valid('completed', 'failed', 'skipped')
    .required()
    .description("This company's check in the run: `failed` (see the run's output), or `skipped` because another run was checking the company at that moment."),
  results: Joi.object({
    products_evaluated: count,
    events_opened: count,
    events_resolved: count,
    deliveries_created: count.description('Deliveries of the events opened in this run.'),
    due_deliveries: count.description('Deliveries from earlier runs that were due (retries, or lost by the queue).'),
    deliveries_sent: count.description('Attempts that succeeded (without a queue, the run sends itself).'),
    deliveries_retrying: count,
    deliveries_failed: count,
    deliveries_enqueued: count.description('Handed to the notifier (with `REDIS_URL`).'),
  })
    .allow(null)
    .required()
    .description("The company's numbers; null unless `status` is `completed`."),
}).id('CheckRulesRun');
