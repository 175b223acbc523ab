import { expect } from 'chai';
import { KeyObject, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import sinon from 'sinon';
import { Identity, InternalTokenSigner, requireInternalAuth, secretKey, signInternalToken } from '../src';

const SECRET = 'an-internal-secret-of-at-least-32-characters';

const identity = (overrides: Partial<Identity> = {}): Identity => ({
  companyId: '00000000-0000-4000-8000-00000000000c',
  principal: { kind: 'api_key', id: '00000000-0000-4000-8000-00000000000a' },
  permissions: ['read', 'write'],
  tier: 'free',
  ...overrides,
});

describe('secret keys', () => {
  it("sign exactly what the string secret signed, so old and new processes accept each other's tokens", () => {
    const claims = { sub: 'x', iat: 1_700_000_000 };
    expect(jwt.sign(claims, secretKey(SECRET), { algorithm: 'HS256' })).to.equal(jwt.sign(claims, SECRET, { algorithm: 'HS256' }));
  });

  it('are made once per secret', () => {
    expect(secretKey(SECRET)).to.be.instanceOf(KeyObject).and.to.equal(secretKey(SECRET));
    expect(secretKey(SECRET)).to.not.equal(secretKey(`${SECRET}!`));
  });

  it('refuse a token that claims an asymmetric algorithm (no algorithm confusion)', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256 = jwt.sign({ sub: 'x' }, privateKey, { algorithm: 'RS256' });
    expect(() => jwt.verify(rs256, secretKey(SECRET))).to.throw(/invalid algorithm|symmetric/);
  });
});

describe('InternalTokenSigner', () => {
  let clock: sinon.SinonFakeTimers | undefined;
  afterEach(() => clock?.restore());

  it('reuses one token per identity for 30 s, then signs a new one valid for 60 s', () => {
    clock = sinon.useFakeTimers({ now: Date.UTC(2026, 0, 1), toFake: ['Date'] });
    const signer = new InternalTokenSigner(SECRET);
    const first = signer.tokenFor(identity());
    expect(signer.tokenFor(identity())).to.equal(first);
    clock.tick(29_000);
    expect(signer.tokenFor(identity())).to.equal(first);
    clock.tick(1_001);
    const second = signer.tokenFor(identity());
    expect(second).to.not.equal(first);
    const claims = jwt.verify(second, SECRET, { algorithms: ['HS256'], audience: 'pi-services', issuer: 'pi-gateway' }) as jwt.JwtPayload;
    expect(claims.exp! - claims.iat!).to.equal(60);
    expect(claims).to.include({ sub: identity().principal.id, cid: identity().companyId, pk: 'api_key', tier: 'free' });
    expect(claims).to.not.have.property('rid');
  });

  it('signs a different token for any difference in what it says about the caller', () => {
    const signer = new InternalTokenSigner(SECRET);
    const variants: Identity[] = [
      identity(),
      identity({ companyId: '00000000-0000-4000-8000-00000000000d' }),
      identity({ principal: { kind: 'api_key', id: '00000000-0000-4000-8000-00000000000b' } }),
      identity({ principal: { kind: 'user', id: '00000000-0000-4000-8000-00000000000a' } }),
      identity({ permissions: ['read'] }),
      identity({ tier: 'premium' }),
      identity({ role: 'admin' }),
    ];
    const tokens = new Set([...variants.map((v) => signer.tokenFor(v)), signer.tokenFor(undefined)]);
    expect(tokens.size).to.equal(variants.length + 1);
    const anonymous = jwt.decode(signer.tokenFor(undefined)) as jwt.JwtPayload;
    expect(anonymous).to.include({ sub: 'anonymous', pk: 'anonymous' });
  });

  it('signs anew when the clock was set back past the reuse window', () => {
    clock = sinon.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12), toFake: ['Date'] });
    const signer = new InternalTokenSigner(SECRET);
    const late = signer.tokenFor(identity());
    clock.setSystemTime(Date.UTC(2026, 0, 1, 8));
    expect(signer.tokenFor(identity())).to.not.equal(late);
  });

  it('keeps signInternalToken for one request, with its request id', () => {
    const token = signInternalToken(identity(), 'req-12345678', secretKey(SECRET));
    expect(jwt.verify(token, SECRET, { algorithms: ['HS256'] })).to.include({ rid: 'req-12345678' });
  });
});

describe('requireInternalAuth', () => {
  let clock: sinon.SinonFakeTimers | undefined;
  afterEach(() => clock?.restore());

  /** What the middleware made of a request carrying `token`: the identity, or the error it passed on. */
  const outcome = (auth: ReturnType<typeof requireInternalAuth>, token: string) =>
    new Promise<{ identity?: Identity; status?: number }>((resolve) => {
      const req = { headers: { 'x-internal-auth': token } } as unknown as Parameters<typeof auth>[0];
      auth(req, {} as Parameters<typeof auth>[1], (err?: unknown) =>
        resolve(err ? { status: (err as { status: number }).status } : { identity: req.identity }),
      );
    });

  it('accepts a token it verified again until its expiry, and not a second later', async () => {
    clock = sinon.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12), toFake: ['Date'] });
    const auth = requireInternalAuth(SECRET);
    const token = new InternalTokenSigner(SECRET).tokenFor(identity());
    expect((await outcome(auth, token)).identity).to.deep.include({ companyId: identity().companyId, permissions: ['read', 'write'] });
    clock.tick(59_000);
    expect((await outcome(auth, token)).identity?.principal).to.deep.equal(identity().principal);
    clock.tick(1_001);
    expect(await outcome(auth, token)).to.deep.equal({ status: 401 });
  });

  it('never takes a token with another signature for one it verified', async () => {
    const auth = requireInternalAuth(SECRET);
    const token = new InternalTokenSigner(SECRET).tokenFor(identity());
    expect((await outcome(auth, token)).identity).to.not.equal(undefined);
    const [head, body] = token.split('.');
    const forged = `${head}.${body}.${jwt.sign('x', SECRET).split('.')[2]}`;
    expect(await outcome(auth, forged)).to.deep.equal({ status: 401 });
    const otherSecret = new InternalTokenSigner(`${SECRET}!`).tokenFor(identity());
    expect(await outcome(auth, otherSecret)).to.deep.equal({ status: 401 });
  });
});
