import dns from 'node:dns';
import { expect } from 'chai';
import sinon from 'sinon';
import { REFUSED_ADDRESS_MESSAGE, SsrfError, assertPublicUrl, isRefusedAddress } from '../src';

type LookupCallback = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

/** Replaces dns.lookup for one host name with a fixed answer; other names are not expected. */
function fakeDns(answers: Record<string, dns.LookupAddress[] | NodeJS.ErrnoException>): sinon.SinonStub {
  return sinon.stub(dns, 'lookup').callsFake(((host: string, _options: unknown, callback: LookupCallback) => {
    const answer = answers[host];
    if (answer === undefined || answer instanceof Error) {
      const err: NodeJS.ErrnoException = answer ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      process.nextTick(() => callback(err, []));
    } else {
      process.nextTick(() => callback(null, answer));
    }
  }) as unknown as typeof dns.lookup);
}

async function refusal(url: string, allowLoopback = false): Promise<SsrfError> {
  try {
    await assertPublicUrl(url, { allowLoopback });
  } catch (err) {
    expect(err).to.be.instanceOf(SsrfError);
    return err as SsrfError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('assertPublicUrl', () => {
  afterEach(() => sinon.restore());

  const internal = [
    'http://127.0.0.1/hook',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://localhost:8080/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[64:ff9b::a9fe:a9fe]/',
  ];
  for (const url of internal) {
    it(`refuses ${url} as a private, loopback or link-local address`, async () => {
      const err = await refusal(url);
      expect(err.message).to.equal(REFUSED_ADDRESS_MESSAGE);
      expect(err.reason).to.equal('refused_address');
    });
  }

  it('refuses schemes other than http and https', async () => {
    for (const url of ['ftp://8.8.8.8/file', 'javascript:alert(1)', 'file:///etc/passwd', 'gopher://8.8.8.8/']) {
      const err = await refusal(url);
      expect(err.message, url).to.equal('url must use http or https');
    }
  });

  it('refuses URLs carrying credentials, and text that is not a URL', async () => {
    expect((await refusal('http://user:pass@example.com/')).message).to.equal('url must not contain a user name or password');
    expect((await refusal('http://user@8.8.8.8/')).reason).to.equal('credentials');
    expect((await refusal('not a url')).reason).to.equal('invalid_url');
    expect((await refusal('')).reason).to.equal('invalid_url');
  });

  it('is a 400 validation_error naming the url field, without the resolved address', async () => {
    fakeDns({ 'hooks.internal.test': [{ address: '10.1.2.3', family: 4 }] });
    const err = await refusal('https://hooks.internal.test/in');
    expect(err.status).to.equal(400);
    expect(err.code).to.equal('validation_error');
    expect(err.details).to.deep.equal({ url: REFUSED_ADDRESS_MESSAGE });
    expect(err.message).to.not.include('10.1.2.3');
  });

  it('refuses a host name when any one of its addresses is internal', async () => {
    fakeDns({
      'mixed.example.test': [
        { address: '8.8.8.8', family: 4 },
        { address: '::ffff:192.168.0.10', family: 6 },
      ],
    });
    expect((await refusal('https://mixed.example.test/')).reason).to.equal('refused_address');
  });

  it('refuses a host name that does not resolve', async () => {
    fakeDns({});
    const err = await refusal('https://nowhere.example.test/');
    expect(err.message).to.equal('url host could not be resolved');
  });

  it('resolves a host name once, and returns the first address to connect to', async () => {
    const lookup = fakeDns({
      'hooks.example.test': [
        { address: '2606:4700:4700::1111', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ],
    });
    const target = await assertPublicUrl('https://hooks.example.test/in?x=1', { allowLoopback: false });
    expect(target).to.deep.include({ address: '2606:4700:4700::1111', family: 6 });
    expect(target.url.hostname).to.equal('hooks.example.test');
    expect(lookup.calledOnce).to.equal(true);
    expect(lookup.firstCall.args[1]).to.deep.equal({ all: true, verbatim: true });
  });

  it('accepts public IP literals without any DNS query', async () => {
    const lookup = sinon.spy(dns, 'lookup');
    expect(await assertPublicUrl('http://93.184.216.34/hook', { allowLoopback: false })).to.deep.include({ address: '93.184.216.34', family: 4 });
    expect(await assertPublicUrl('https://8.8.8.8:8443/', { allowLoopback: false })).to.deep.include({ address: '8.8.8.8', family: 4 });
    expect(await assertPublicUrl('https://[2606:4700:4700::1111]/', { allowLoopback: false })).to.deep.include({
      address: '2606:4700:4700::1111',
      family: 6,
    });
    expect(lookup.called).to.equal(false);
  });

  describe('with allowLoopback', () => {
    it('accepts 127.0.0.1, [::1] and localhost', async () => {
      expect(await assertPublicUrl('http://127.0.0.1:3000/', { allowLoopback: true })).to.deep.include({ address: '127.0.0.1', family: 4 });
      expect(await assertPublicUrl('http://[::1]:3000/', { allowLoopback: true })).to.deep.include({ address: '::1', family: 6 });
      const target = await assertPublicUrl('http://localhost:3000/', { allowLoopback: true });
      expect(['127.0.0.1', '::1']).to.include(target.address);
    });

    it('still refuses private, link-local and unspecified addresses', async () => {
      for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://0.0.0.0/', 'http://[::ffff:10.0.0.1]/', 'http://[fe80::1]/']) {
        expect((await refusal(url, true)).reason, url).to.equal('refused_address');
      }
    });
  });
});

describe('isRefusedAddress', () => {
  const strict = { allowLoopback: false };

  it('refuses every special-purpose IPv4 block, boundaries included', () => {
    const refused = [
      '0.0.0.0',
      '0.255.255.255',
      '10.0.0.0',
      '10.255.255.255',
      '100.64.0.0',
      '100.127.255.255',
      '127.0.0.1',
      '127.255.255.254',
      '169.254.0.1',
      '172.16.0.0',
      '172.31.255.255',
      '192.0.0.8',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.0.1',
      '198.18.0.1',
      '198.19.255.255',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.251',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
    ];
    for (const ip of refused) expect(isRefusedAddress(ip, strict), ip).to.equal(true);
  });

  it('accepts public IPv4 addresses next to those blocks', () => {
    const allowed = [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '93.184.216.34',
    ];
    for (const ip of allowed) expect(isRefusedAddress(ip, strict), ip).to.equal(false);
  });

  it('refuses special IPv6 addresses and accepts global unicast', () => {
    const refused = [
      '::',
      '::1',
      '[::1]',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'fec0::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      'ff05::1:3',
      '100::1',
      '2001:db8::1',
      '2001::1',
      '2001:2::1',
      '3fff::1',
      '5f00::1',
    ];
    for (const ip of refused) expect(isRefusedAddress(ip, strict), ip).to.equal(true);
    for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888']) expect(isRefusedAddress(ip, strict), ip).to.equal(false);
  });

  it('judges IPv6 forms that embed an IPv4 address by that address', () => {
    const refused = [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::FFFF:A9FE:A9FE',
      '::ffff:10.0.0.1',
      '::127.0.0.1',
      '::ffff:0:7f00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::808:808',
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
    ];
    for (const ip of refused) expect(isRefusedAddress(ip, strict), ip).to.equal(true);
    for (const ip of ['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) expect(isRefusedAddress(ip, strict), ip).to.equal(false);
  });

  it('lets loopback through only when allowed, in every form', () => {
    for (const ip of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(isRefusedAddress(ip, strict), ip).to.equal(true);
      expect(isRefusedAddress(ip, { allowLoopback: true }), ip).to.equal(false);
    }
    expect(isRefusedAddress('10.0.0.1', { allowLoopback: true })).to.equal(true);
  });

  it('refuses anything that is not an IP address', () => {
    for (const text of ['', 'localhost', '127.1', '2130706433', '1.2.3.4.5', '::g']) expect(isRefusedAddress(text, strict), text).to.equal(true);
  });
});
