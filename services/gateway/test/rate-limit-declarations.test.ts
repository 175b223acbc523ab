import { expect } from 'chai';
import { allOperations } from '../src/docs/apis';
import { assertRateLimitsKnown, operationScopes } from '../src/rate-limits/limits';

describe('rate-limit scopes declared by the operations', () => {
  const scopesOf = (operationId: string) => operationScopes(allOperations().find((op) => op.operationId === operationId));

  it('reach the gateway from every part of the system, the published services included', () => {
    expect(scopesOf('obtainToken')).to.deep.equal(['login']);
    expect(scopesOf('signInToScan')).to.deep.equal(['login']);
    expect(scopesOf('scanQrCode')).to.deep.equal(['qr_redirect']);
    expect(scopesOf('exchangeQrToken')).to.deep.equal(['qr_api']);
    for (const id of ['importProductModels', 'importLocations', 'importOpeningStock']) expect(scopesOf(id), id).to.deep.equal(['product_import']);
    expect(scopesOf('exportCompany')).to.deep.equal(['company_export']);
    expect(scopesOf('listProductModels')).to.deep.equal([]);
    const qr = allOperations().filter((op) => op.path.startsWith('/api/v1/qr-codes/'));
    expect(qr.length).to.be.greaterThan(5);
    for (const op of qr) expect(operationScopes(op), op.operationId).to.deep.equal(['qr_api']);
  });

  it('stop the gateway at start when an operation names a scope it cannot have, naming both', () => {
    expect(() => assertRateLimitsKnown(allOperations())).not.to.throw();
    const wrong = [...allOperations(), { operationId: 'listThings', rateLimits: ['widget_burst'] }];
    expect(() => assertRateLimitsKnown(wrong)).to.throw(/listThings: widget_burst/);
  });
});
