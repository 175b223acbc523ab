/** The audit log's entries as the suites read them (GET /api/v1/audit-log/). */
import { expect } from 'chai';
import { ApiResponse, get } from '../../support/api';
import type { TestCompany } from '../../support/builders';

export interface Entry {
  id: string;
  actor: { type: string; id: string | null };
  action: string;
  resource_type: string;
  resource_id: string;
  changes: Record<string, { before: unknown; after: unknown }>;
  created_at: string;
}

/** The body of an answer with `status` (200 unless said). */
export const ok = (res: ApiResponse, status = 200) => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  return res.body;
};

/** The company's entries, newest first, narrowed by `query` (`&resource_type=…`). */
export const listEntries = async (company: TestCompany, query = '') =>
  ok(await get(`/api/v1/audit-log/?page_size=500${query}`, { token: company.token })).results as Entry[];
